import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import type { WorkspaceGrant } from "@agent-lattice/core";

/**
 * The escape catalogue: attempts to write outside the writable roots, grouped by the root cause they probe (issue
 * 11's ten causes, plus the baseline forms that were covered before). Each case must leave everything outside the
 * roots byte-identical, in every mode: through the tool handlers, through the umbrella's createAgent() and through
 * a delegated grant (the umbrella's tests import this file), with the sandbox and without it (where the analyser
 * must refuse it). Cases marked `channels` are the ones also run through createAgent() and delegation.
 *
 * Layout (fresh per case, see makeLayout):
 *   base/ws                the only writable root (the tools' cwd)
 *   base/ws/sub/           a real directory;  base/ws/empty/  an empty one
 *   base/ws/file.txt       "a file"
 *   base/ws/link-out       -> base/outside          (a symlinked directory pointing out)
 *   base/ws/link-file      -> base/outside/existing.txt
 *   base/ws/dangling       -> base/outside/from-dangling.txt (does not exist)
 *   base/ws/dangling-rel   -> ../outside/rel-dangling.txt     (relative, does not exist)
 *   base/ws/link-sub       -> base/ws/sub           (a symlink to a directory inside)
 *   base/ws/a/b/c-link     -> base/ws/sub           (lexically three levels down, physically one)
 *   base/ws/loop1 -> loop2 -> loop1                  (a symlink cycle)
 *   base/outside/existing.txt "original";  base/outside/home/  (HOME of Bash in these cases)
 *   base/ws-evil/          a prefix sibling of the root
 */
export interface Layout {
  base: string;
  ws: string;
  outside: string;
  home: string;
}

export type RootCause =
  | "1 paths decided on text"
  | "2 working-directory tracking"
  | "3 /dev/stdout, /dev/fd re-open files"
  | "4 new symlinks resolved lexically"
  | "5 long-option prefixes and writing options"
  | "6 shell code the analyser never sees"
  | "7 wrappers not peeled"
  | "8 writing programs in neither list"
  | "9 sandbox capabilities"
  | "baseline";

export interface EscapeCase {
  cause: RootCause;
  name: string;
  tool: "Write" | "Edit" | "Bash";
  input: (p: Layout) => Record<string, unknown>;
  grants?: (p: Layout) => WorkspaceGrant[];
  /** Extra writable roots (besides base/ws). */
  roots?: (p: Layout) => string[];
  /** Environment of the Bash tool on top of PATH and HOME=base/outside/home. */
  env?: (p: Layout) => Record<string, string>;
  /** Grants put where a tool must not look for them (the host context). */
  contextGrants?: (p: Layout) => WorkspaceGrant[];
  /** Extra setup after the layout. */
  setup?: (p: Layout) => void;
  /** Only meaningful with the sandbox on (the analyser has nothing to refuse, or the case probes the sandbox). */
  sandboxOnly?: boolean;
  /** Why the case cannot run here, when its precondition fails. */
  skip?: (p: Layout) => string | false;
  /** Also run through createAgent() and a delegated grant. */
  channels?: boolean;
  /** Refused with an ordinary error (not a permission_denied), e.g. a hard-linked file. */
  refusal?: boolean;
}

const write = (path: (p: Layout) => string): Pick<EscapeCase, "tool" | "input"> => ({
  tool: "Write",
  input: p => ({ file_path: path(p), content: "pwned" }),
});
const edit = (path: (p: Layout) => string): Pick<EscapeCase, "tool" | "input"> => ({
  tool: "Edit",
  input: p => ({ file_path: path(p), old_string: "original", new_string: "pwned" }),
});
const bash = (command: (p: Layout) => string): Pick<EscapeCase, "tool" | "input"> => ({
  tool: "Bash",
  input: p => ({ command: command(p) }),
});

export const NFC = "caf\u00e9";
export const NFD = "cafe\u0301";

export const escapeCases: EscapeCase[] = [
  // --- 1. Write/Edit decided a path on its text ---------------------------------------------------------------
  {
    cause: "1 paths decided on text",
    name: ".. after a missing component",
    ...write(() => "nope/../link-out/x.txt"),
    channels: true,
  },
  {
    cause: "1 paths decided on text",
    name: ".. after two missing components",
    ...write(() => "a1/b1/../../link-out/y.txt"),
  },
  {
    cause: "1 paths decided on text",
    name: "Edit with .. after a missing component",
    ...edit(() => "nope/../link-file"),
    channels: true,
  },
  {
    cause: "1 paths decided on text",
    name: ".. below a regular file (ENOTDIR)",
    ...write(() => "file.txt/../link-out/enotdir.txt"),
  },
  { cause: "1 paths decided on text", name: "dangling symlink", ...write(() => "dangling"), channels: true },
  { cause: "1 paths decided on text", name: "relative dangling symlink", ...write(() => "dangling-rel") },
  {
    cause: "1 paths decided on text",
    name: "NUL byte in a component",
    ...write(() => "nul\u0000/../../outside/nul.txt"),
  },
  {
    cause: "1 paths decided on text",
    name: "newline in a missing component before ..",
    ...write(() => "new\nline/../link-out/nl.txt"),
  },
  {
    cause: "1 paths decided on text",
    name: "over-long missing component before ..",
    ...write(() => `${"x".repeat(300)}/../link-out/long.txt`),
  },
  {
    cause: "1 paths decided on text",
    name: "Bash redirect with .. after a missing component",
    ...bash(() => "echo x > nope/../link-out/bash.txt"),
  },
  {
    cause: "1 paths decided on text",
    name: "symlinked directory pointing out",
    ...write(() => "link-out/new.txt"),
  },
  { cause: "1 paths decided on text", name: "symlinked file pointing out", ...write(() => "link-file") },
  {
    cause: "1 paths decided on text",
    name: "missing parents under a symlinked directory",
    ...write(() => "link-out/newdir/deeper/file.txt"),
  },
  {
    cause: "1 paths decided on text",
    name: "symlink followed by .. (physical parent)",
    ...write(() => "link-out/../escaped.txt"),
  },
  { cause: "1 paths decided on text", name: "symlink cycle", ...write(() => "loop1/x.txt") },
  { cause: "1 paths decided on text", name: "Edit through a symlinked file", ...edit(() => "link-file") },
  {
    cause: "1 paths decided on text",
    name: "hard link inside the root to an outside file",
    ...edit(() => "hard-in"),
    refusal: true,
    setup: p => {
      const { linkSync } = require("node:fs") as typeof import("node:fs");
      linkSync(`${p.outside}/existing.txt`, `${p.ws}/hard-in`);
    },
  },

  // --- 2. working-directory tracking -------------------------------------------------------------------------
  {
    cause: "2 working-directory tracking",
    name: "cd -- DIR",
    ...bash(p => `cd -- ${p.outside} && touch cd-dashdash.txt`),
    channels: true,
  },
  {
    cause: "2 working-directory tracking",
    name: "cd -P link/..",
    ...bash(() => "cd -P link-out/.. && touch cd-P.txt"),
  },
  {
    cause: "2 working-directory tracking",
    name: "set -P then cd link/..",
    ...bash(() => "set -P; cd link-out/..; touch set-P.txt"),
  },
  {
    cause: "2 working-directory tracking",
    name: "logical cd falling back to the physical path",
    ...bash(() => "cd link-out/../outside && touch fallback.txt"),
  },
  {
    cause: "2 working-directory tracking",
    name: "cd inside a function",
    ...bash(p => `f() { cd ${p.outside}; }; f; touch fn-cd.txt`),
    channels: true,
  },
  {
    cause: "2 working-directory tracking",
    name: "cd in an alias",
    ...bash(p => `shopt -s expand_aliases\nalias go='cd ${p.outside}'\ngo; touch alias-cd.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "lastpipe read of a directory",
    ...bash(p => `shopt -s lastpipe; echo ${p.outside} | read d; cd "$d" && touch lastpipe.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "CDPATH set by read",
    ...bash(p => `read CDPATH <<< ${p.base}; cd outside && touch read-cdpath.txt`),
    channels: true,
  },
  {
    cause: "2 working-directory tracking",
    name: "CDPATH set by for",
    ...bash(p => `for CDPATH in ${p.base}; do :; done; cd outside && touch for-cdpath.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "CDPATH set by printf -v",
    ...bash(p => `printf -v CDPATH %s ${p.base}; cd outside && touch printf-cdpath.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "CDPATH set by mapfile",
    ...bash(p => `mapfile -t CDPATH <<< ${p.base}; cd outside && touch mapfile-cdpath.txt`),
  },
  {
    cause: "2 working-directory tracking",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
    name: "CDPATH set by ${CDPATH:=…}",
    ...bash(p => `: \${CDPATH:=${p.base}}; cd outside && touch default-cdpath.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "cdable_vars",
    ...bash(p => `shopt -s cdable_vars; d=${p.outside}; cd d && touch cdable.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "builtin -- cd",
    ...bash(p => `builtin -- cd ${p.outside} && touch builtin-dd.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "command -p cd",
    ...bash(p => `command -p cd ${p.outside} && touch command-p.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "eval -- cd",
    ...bash(p => `eval -- "cd ${p.outside}"; touch eval-dd.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "cd in a DEBUG trap",
    ...bash(p => `trap 'cd ${p.outside}' DEBUG; touch trap-cd.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "cd to a run-time directory",
    ...bash(() => 'cd "$SOMEWHERE" && touch unknown-cd.txt'),
    env: p => ({ SOMEWHERE: p.outside }),
  },
  {
    cause: "2 working-directory tracking",
    name: "cd outside then a relative write",
    ...bash(p => `cd ${p.outside} && echo x > cd.txt`),
  },
  {
    cause: "2 working-directory tracking",
    name: "cd through a symlink then a relative write",
    ...bash(() => "cd link-out; touch cd-link.txt"),
  },
  {
    cause: "2 working-directory tracking",
    name: "CDPATH from the environment",
    ...bash(() => "cd outside && echo x > cdpath.txt"),
    env: p => ({ CDPATH: p.base }),
  },
  {
    cause: "2 working-directory tracking",
    name: "/proc/self/cwd means the shell's directory, not the host's",
    ...bash(p => `cd ${p.outside} 2>/dev/null; echo x > /proc/self/cwd/proc-cwd.txt`),
  },

  // --- 3. /dev/stdout, /dev/stderr, /dev/fd re-open real files ------------------------------------------------
  {
    cause: "3 /dev/stdout, /dev/fd re-open files",
    name: ">/dev/stdout after 1<file",
    ...bash(p => `echo pwned 1<${p.outside}/existing.txt >/dev/stdout`),
    channels: true,
  },
  {
    cause: "3 /dev/stdout, /dev/fd re-open files",
    name: ">/dev/fd/3 after exec 3<file",
    ...bash(p => `exec 3<${p.outside}/existing.txt; echo pwned >/dev/fd/3`),
    channels: true,
  },
  {
    cause: "3 /dev/stdout, /dev/fd re-open files",
    name: ">/dev/stderr after 2<file",
    ...bash(p => `echo pwned 2<${p.outside}/existing.txt >/dev/stderr`),
  },
  {
    cause: "3 /dev/stdout, /dev/fd re-open files",
    name: "tee /dev/fd/3",
    ...bash(p => `{ echo pwned | tee /dev/fd/3; } 3<${p.outside}/existing.txt`),
  },
  {
    cause: "3 /dev/stdout, /dev/fd re-open files",
    name: "dd of=/dev/stdout",
    ...bash(p => `dd if=/dev/zero of=/dev/stdout count=1 1<${p.outside}/existing.txt`),
  },
  {
    cause: "3 /dev/stdout, /dev/fd re-open files",
    name: "/proc/self/fd/N",
    ...bash(p => `exec 4<${p.outside}/existing.txt; echo pwned > /proc/self/fd/4`),
  },

  // --- 4. new symlinks resolved lexically ---------------------------------------------------------------------
  {
    cause: "4 new symlinks resolved lexically",
    name: "ln -sr (target relative to the working directory)",
    ...bash(() => "mkdir -p sub/deep && ln -sr ../outside sub/deep/lnk && echo x > sub/deep/lnk/sr.txt"),
    channels: true,
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "rmdir d && ln -s ../out d",
    ...bash(() => "rmdir empty && ln -s ../outside empty && echo x > empty/rmdir.txt"),
    channels: true,
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "ln -sfn replacing a link to a directory",
    ...bash(() => "ln -sfn ../outside link-sub && echo x > link-sub/sfn.txt"),
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "link created inside a linked directory",
    ...bash(() => "ln -s ../../outside a/b/c-link/l && echo x > a/b/c-link/l/inside-linked.txt"),
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "coreutils link (hard link)",
    ...bash(p => `link ${p.outside}/existing.txt hl && echo pwned > hl`),
    channels: true,
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "cp -s (symbolic copies)",
    ...bash(p => `cp -s ${p.outside}/existing.txt cps && echo pwned > cps`),
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "ln -s to outside, then a write through it",
    ...bash(p => `ln -s ${p.outside} new-link && echo x > new-link/via-new-link.txt`),
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "ln hard link to an outside file",
    ...bash(p => `ln ${p.outside}/existing.txt hard-link && echo pwned > hard-link`),
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "mv a link into place, then write through it",
    ...bash(() => "mv link-out moved && echo x > moved/mv-then-write.txt"),
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "cp -a a link into place, then write through it",
    ...bash(() => "cp -a link-out copied && echo x > copied/cp-then-write.txt"),
  },
  {
    cause: "4 new symlinks resolved lexically",
    name: "cp -r into a tree holding a file symlink",
    ...bash(() => "mkdir -p src2 && echo pwned > src2/existing.txt && cp -r src2/. tree/"),
    setup: p => {
      mkdirSync(`${p.ws}/tree`);
      symlinkSync(`${p.outside}/existing.txt`, `${p.ws}/tree/existing.txt`);
    },
  },

  // --- 5. GNU long-option prefixes and writing options ---------------------------------------------------------
  {
    cause: "5 long-option prefixes and writing options",
    name: "cp --target=",
    ...bash(p => `cp --target=${p.outside} file.txt`),
    channels: true,
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "cp --target-dir DIR",
    ...bash(p => `cp --target-dir ${p.outside} file.txt`),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "mv --target-d=",
    ...bash(p => `cp file.txt f2 && mv --target-d=${p.outside} f2`),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "sed --in-pl",
    ...bash(p => `sed --in-pl s/original/pwned/ ${p.outside}/existing.txt`),
    channels: true,
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "sed -i'DIR/*' (backup elsewhere)",
    ...bash(p => `sed -i'${p.outside}/*' s/a/b/ file.txt`),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "sed w command",
    ...bash(p => `sed -n 'w ${p.outside}/sed-w.txt' file.txt`),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "chmod --ref=",
    ...bash(p => `chmod --ref=file.txt ${p.outside}/existing.txt`),
    channels: true,
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "tar --director=",
    ...bash(p => `tar -cf a.tar file.txt && tar --director=${p.outside} -xf a.tar`),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "tar --to-command",
    ...bash(p => `tar -cf a.tar file.txt && tar -xf a.tar --to-command='tee ${p.outside}/tc.txt'`),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "tar --checkpoint-action=exec",
    ...bash(
      p => `tar --checkpoint=1 --checkpoint-action=exec='touch ${p.outside}/cpa.txt' -cf a.tar file.txt`,
    ),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "tar -P (absolute names)",
    ...bash(
      p =>
        `echo pwned > existing.txt && tar -cPf a.tar --transform='s,^,${p.outside}/,' existing.txt && tar -xPf a.tar`,
    ),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "find -files0-from",
    ...bash(p => `printf '%s\\0' ${p.outside}/existing.txt > list0 && find -files0-from list0 -delete`),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "cp with a glob that may match an option",
    ...bash(() => "touch -- '--target-directory=..' && cp * sub/"),
  },
  {
    cause: "5 long-option prefixes and writing options",
    name: "ln --sym",
    ...bash(p => `ln --sym ${p.outside} lk && echo x > lk/sym.txt`),
  },

  // --- 6. shell code the analyser never sees --------------------------------------------------------------------
  {
    cause: "6 shell code the analyser never sees",
    name: "{ bash; } <<< here-string",
    ...bash(p => `{ bash; } <<< 'touch ${p.outside}/brace-bash.txt'`),
    channels: true,
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "bash -s x <<< here-string",
    ...bash(p => `bash -s x <<< 'touch ${p.outside}/bash-s.txt'`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "alias",
    ...bash(p => `shopt -s expand_aliases\nalias ls='touch ${p.outside}/alias.txt'\nls`),
    channels: true,
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "hash -p",
    ...bash(p => `hash -p /usr/bin/touch ls; ls ${p.outside}/hash.txt`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "PS4 with set -x",
    ...bash(p => `PS4='$(touch ${p.outside}/ps4.txt)'; set -x; true`),
    channels: true,
  },
  {
    cause: "6 shell code the analyser never sees",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
    name: "${x@P}",
    ...bash(p => `x='$(touch ${p.outside}/atp.txt)'; echo "\${x@P}"`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "arithmetic on a[$(…)]",
    ...bash(p => `x='a[$(touch ${p.outside}/arith.txt)]'; echo $((x))`),
    channels: true,
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "[[ -eq ]] evaluates arithmetic",
    ...bash(p => `x='a[$(touch ${p.outside}/test-eq.txt)]'; [[ $x -eq 1 ]]`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "mapfile -C callback",
    ...bash(p => `mapfile -C 'touch ${p.outside}/mapfile-c.txt #' -c 1 arr <<< a`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "BASH_FUNC_ through env",
    ...bash(p => `env 'BASH_FUNC_ls%%=() { touch ${p.outside}/bf.txt; }' bash -c ls`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "history -w",
    ...bash(p => `history -w ${p.outside}/hist.txt`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "rbash -c",
    ...bash(p => `rbash -c 'touch ${p.outside}/rbash.txt'`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "{~,.} brace then tilde",
    ...bash(() => "touch {~,.}/brace-tilde.txt"),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "eval",
    ...bash(p => `eval "touch ${p.outside}/eval.txt"`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "source of a process substitution",
    ...bash(p => `. <(echo touch ${p.outside}/source.txt)`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "here-document fed to bash",
    ...bash(p => `bash <<'EOF'\ntouch ${p.outside}/heredoc-sh.txt\nEOF`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "commands piped into sh",
    ...bash(p => `echo "touch ${p.outside}/pipe-sh.txt" | sh`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "trap action",
    ...bash(p => `trap "touch ${p.outside}/trap.txt" EXIT`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "script written then run",
    ...bash(p => `printf 'touch ${p.outside}/script.txt\\n' > s.sh && bash s.sh`),
  },
  {
    cause: "6 shell code the analyser never sees",
    name: "LD_PRELOAD / environment to a program",
    ...bash(p => `TMPDIR=${p.outside} sort -S 1 file.txt`),
  },

  // --- 7. wrappers not peeled ----------------------------------------------------------------------------------
  {
    cause: "7 wrappers not peeled",
    name: "chroot",
    ...bash(p => `chroot / touch ${p.outside}/chroot.txt`),
    channels: true,
  },
  {
    cause: "7 wrappers not peeled",
    name: "taskset",
    ...bash(p => `taskset -c 0 touch ${p.outside}/taskset.txt`),
    channels: true,
  },
  { cause: "7 wrappers not peeled", name: "setpriv", ...bash(p => `setpriv touch ${p.outside}/setpriv.txt`) },
  { cause: "7 wrappers not peeled", name: "unshare", ...bash(p => `unshare touch ${p.outside}/unshare.txt`) },
  {
    cause: "7 wrappers not peeled",
    name: "runuser",
    ...bash(p => `runuser -u root -- touch ${p.outside}/runuser.txt`),
  },
  {
    cause: "7 wrappers not peeled",
    name: "script -c",
    ...bash(p => `script -qc 'touch ${p.outside}/script-c.txt' /dev/null`),
    channels: true,
  },
  {
    cause: "7 wrappers not peeled",
    name: "setarch",
    ...bash(p => `setarch $(uname -m) touch ${p.outside}/setarch.txt`),
  },
  {
    cause: "7 wrappers not peeled",
    name: "prlimit",
    ...bash(p => `prlimit --nofile=100 touch ${p.outside}/prlimit.txt`),
  },
  { cause: "7 wrappers not peeled", name: "sudo", ...bash(p => `sudo -n touch ${p.outside}/sudo.txt`) },
  {
    cause: "7 wrappers not peeled",
    name: "xargs with arguments from stdin",
    ...bash(p => `echo ${p.outside}/xargs.txt | xargs touch`),
  },

  // --- 8. writing programs in neither list ----------------------------------------------------------------------
  {
    cause: "8 writing programs in neither list",
    name: "sort -o",
    ...bash(p => `sort -o ${p.outside}/sort.txt file.txt`),
    channels: true,
  },
  {
    cause: "8 writing programs in neither list",
    name: "sort --outp= (prefix)",
    ...bash(p => `sort --outp=${p.outside}/sortp.txt file.txt`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "split",
    ...bash(p => `split -b 1 file.txt ${p.outside}/split-`),
    channels: true,
  },
  {
    cause: "8 writing programs in neither list",
    name: "uniq INPUT OUTPUT",
    ...bash(p => `uniq file.txt ${p.outside}/uniq.txt`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "shuf -o",
    ...bash(p => `shuf -o ${p.outside}/shuf.txt file.txt`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "csplit",
    ...bash(p => `csplit -f ${p.outside}/cs file.txt 1`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "fallocate",
    ...bash(p => `fallocate -l 10 ${p.outside}/falloc.bin`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "gzip",
    ...bash(p => `gzip -k ${p.outside}/existing.txt`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "iconv -o",
    ...bash(p => `iconv -f utf-8 -t utf-8 -o ${p.outside}/iconv.txt file.txt`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "curl -K config",
    ...bash(
      p =>
        `printf 'url = "file:///etc/hostname"\\noutput = "${p.outside}/curlk.txt"\\n' > cfg && curl -sK cfg`,
    ),
  },
  {
    cause: "8 writing programs in neither list",
    name: "python3 -c",
    ...bash(p => `python3 -c "open('${p.outside}/existing.txt', 'w').write('pwned')"`),
    channels: true,
  },
  {
    cause: "8 writing programs in neither list",
    name: "node -e",
    ...bash(p => `node -e "require('fs').writeFileSync('${p.outside}/existing.txt', 'pwned')"`),
    channels: true,
  },
  {
    cause: "8 writing programs in neither list",
    name: "perl -i",
    ...bash(p => `perl -i -pe s/original/pwned/ ${p.outside}/existing.txt`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "awk print >",
    ...bash(p => `awk 'BEGIN { print "pwned" > "${p.outside}/existing.txt" }'`),
  },
  {
    cause: "8 writing programs in neither list",
    name: "curl -o",
    ...bash(p => `curl -sSo ${p.outside}/c.html file:///dev/null`),
  },

  // --- 9. the sandbox with every capability -----------------------------------------------------------------------
  {
    cause: "9 sandbox capabilities",
    name: "mount -o remount,rw / then write",
    ...bash(p => `mount -o remount,rw / ; echo pwned > ${p.outside}/existing.txt`),
    channels: true,
  },
  {
    cause: "9 sandbox capabilities",
    name: "remount in a nested user namespace",
    ...bash(p => `unshare -rm sh -c 'mount -o remount,rw / ; echo pwned > ${p.outside}/existing.txt'`),
    channels: true,
  },
  {
    cause: "9 sandbox capabilities",
    name: "bind-mount the root over the outside",
    ...bash(p => `mount --bind ${p.ws} ${p.outside} ; echo pwned > ${p.outside}/existing.txt`),
  },
  {
    cause: "9 sandbox capabilities",
    name: "mknod a disk device",
    ...bash(() => "mknod disk b 8 0 && echo pwned > disk"),
  },

  // --- baseline forms (covered before this issue; kept) ----------------------------------------------------------
  { cause: "baseline", name: "relative traversal ../", ...write(() => "../outside/new.txt") },
  {
    cause: "baseline",
    name: "absolute path with .. out of the root",
    ...write(p => `${p.ws}/../outside/dotdot.txt`),
  },
  { cause: "baseline", name: "// and /./ tricks", ...write(p => `${p.ws}//./..//outside/./slashes.txt`) },
  { cause: "baseline", name: "prefix sibling of the root", ...write(p => `${p.base}/ws-evil/p.txt`) },
  {
    cause: "baseline",
    name: "case variant of the root",
    ...write(p => `${p.base}/WS/case.txt`),
    skip: p => {
      const { existsSync } = require("node:fs") as typeof import("node:fs");
      return existsSync(`${p.base}/WS`) ? "the file system is case-insensitive" : false;
    },
  },
  {
    cause: "baseline",
    name: "unicode NFD spelling of an NFC root",
    ...write(p => `${p.base}/${NFD}/x.txt`),
    roots: p => [`${p.base}/${NFC}`],
    skip: p => {
      const { existsSync } = require("node:fs") as typeof import("node:fs");
      return existsSync(`${p.base}/${NFD}`) ? "the file system normalises unicode names" : false;
    },
  },
  {
    cause: "baseline",
    name: "grant whose access is not write",
    ...write(p => `${p.outside}/read-grant.txt`),
    grants: p => [{ root: p.outside, access: ["read" as "write"] }],
  },
  {
    cause: "baseline",
    name: "grant in the host context instead of the query",
    ...write(p => `${p.outside}/context-grant.txt`),
    contextGrants: p => [{ root: p.outside, access: ["write"] }],
  },
  {
    cause: "baseline",
    name: "grant with a relative root",
    ...write(() => "../outside/rel-grant.txt"),
    grants: () => [{ root: "../outside", access: ["write"] }],
  },
  { cause: "baseline", name: "redirect >", ...bash(p => `echo x > ${p.outside}/r.txt`) },
  {
    cause: "baseline",
    name: "redirect >> onto an existing file",
    ...bash(p => `echo x >> ${p.outside}/existing.txt`),
  },
  {
    cause: "baseline",
    name: "here-string into a file",
    ...bash(p => `cat <<< hello > ${p.outside}/herestring.txt`),
  },
  { cause: "baseline", name: "exec opening a descriptor", ...bash(p => `exec 3> ${p.outside}/fd3.txt`) },
  { cause: "baseline", name: "tee", ...bash(p => `echo x | tee ${p.outside}/tee.txt`) },
  { cause: "baseline", name: "rm", ...bash(p => `rm -f ${p.outside}/existing.txt`) },
  {
    cause: "baseline",
    name: "rm through a symlinked directory",
    ...bash(() => "rm -f link-out/existing.txt"),
  },
  {
    cause: "baseline",
    name: "mv from outside into the root",
    ...bash(p => `mv ${p.outside}/existing.txt moved.txt`),
  },
  { cause: "baseline", name: "dd of=", ...bash(p => `dd if=/dev/zero of=${p.outside}/dd.bin count=1`) },
  { cause: "baseline", name: "truncate", ...bash(p => `truncate -s 0 ${p.outside}/existing.txt`) },
  { cause: "baseline", name: "chmod -w", ...bash(p => `chmod -w ${p.outside}/existing.txt`) },
  { cause: "baseline", name: "find -delete", ...bash(p => `find ${p.outside} -name '*.txt' -delete`) },
  { cause: "baseline", name: "find -exec rm", ...bash(p => `find ${p.outside} -type f -exec rm {} +`) },
  { cause: "baseline", name: "find -L", ...bash(() => "find -L . -name existing.txt -delete") },
  { cause: "baseline", name: "chown -R -L", ...bash(() => "chown -R -L nobody .") },
  { cause: "baseline", name: "glob expanding outside", ...bash(p => `rm -f ${p.outside}/*.txt`) },
  { cause: "baseline", name: "in a subshell", ...bash(p => `(echo x > ${p.outside}/subshell.txt)`) },
  { cause: "baseline", name: "in $( )", ...bash(p => `echo $(echo x > ${p.outside}/cs.txt)`) },
  {
    cause: "baseline",
    name: "in process substitution",
    ...bash(p => `echo x > >(tee ${p.outside}/ps.txt); sleep 0.2`),
  },
  { cause: "baseline", name: "bash -c", ...bash(p => `bash -c 'echo x > ${p.outside}/bash-c.txt'`) },
  { cause: "baseline", name: "env -C", ...bash(p => `env -C ${p.outside} touch env-c.txt`) },
  { cause: "baseline", name: "quoted name and target", ...bash(p => `ec'h'o x > "${p.outside}/quoted.txt"`) },
  { cause: "baseline", name: '"$HOME/x" with HOME outside', ...bash(() => 'echo x >"$HOME/x.txt"') },
  { cause: "baseline", name: "~/x with HOME outside", ...bash(() => "echo x > ~/tilde.txt") },
  {
    cause: "baseline",
    name: "HOME reassigned",
    ...bash(p => `HOME=${p.outside}; echo x > ~/reassigned.txt`),
    env: p => ({ HOME: p.ws }),
  },
  {
    cause: "baseline",
    name: "command substitution in the target",
    ...bash(p => `echo x > $(echo ${p.outside})/cs-target.txt`),
  },
  {
    cause: "baseline",
    name: "variable in the target",
    ...bash(() => "echo x > $OUT_DIR/envvar.txt"),
    env: p => ({ OUT_DIR: p.outside }),
  },
  {
    cause: "baseline",
    name: "command name from a variable",
    ...bash(p => `CMD=touch; $CMD ${p.outside}/dyn.txt`),
  },
  {
    cause: "baseline",
    name: "brace expansion reaching outside",
    ...bash(p => `touch {.,${p.outside}}/brace.txt`),
  },
  { cause: "baseline", name: "dd of=~/x", ...bash(() => "dd if=/dev/zero of=~/dd-tilde.bin count=1") },
];

/** Creates the layout under `base` (an empty directory). */
export function makeLayout(base: string): Layout {
  const p: Layout = { base, ws: `${base}/ws`, outside: `${base}/outside`, home: `${base}/outside/home` };
  mkdirSync(`${p.ws}/sub`, { recursive: true });
  mkdirSync(`${p.ws}/empty`);
  mkdirSync(`${p.ws}/a/b`, { recursive: true });
  mkdirSync(p.home, { recursive: true });
  mkdirSync(`${base}/ws-evil`);
  mkdirSync(`${base}/${NFC}`);
  writeFileSync(`${p.outside}/existing.txt`, "original");
  writeFileSync(`${p.ws}/file.txt`, "a file\n");
  symlinkSync(p.outside, `${p.ws}/link-out`);
  symlinkSync(`${p.outside}/existing.txt`, `${p.ws}/link-file`);
  symlinkSync(`${p.outside}/from-dangling.txt`, `${p.ws}/dangling`);
  symlinkSync("../outside/rel-dangling.txt", `${p.ws}/dangling-rel`);
  symlinkSync(`${p.ws}/sub`, `${p.ws}/link-sub`);
  symlinkSync(`${p.ws}/sub`, `${p.ws}/a/b/c-link`);
  symlinkSync(`${p.ws}/loop2`, `${p.ws}/loop1`);
  symlinkSync(`${p.ws}/loop1`, `${p.ws}/loop2`);
  return p;
}

/** Everything outside the writable root: base without ws's own contents (which the agent may change). */
export function outsideOfRoot(
  p: Layout,
  snapshot: (dir: string) => Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot(p.base)).filter(([path]) => !path.startsWith("./ws/")));
}
