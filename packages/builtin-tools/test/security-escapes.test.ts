import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import type { WorkspaceGrant } from "@agent-lattice/core";
import { beforeEach, describe, expect, it } from "vitest";
import { call, denial, snapshot, tempDir, toolsFor } from "./helpers.js";

/**
 * Attempted escapes from the writable roots. Every case must end in a `permission_denied` result AND leave
 * everything outside the root exactly as it was (compared byte for byte, modes and link targets included).
 *
 * Layout (fresh per test, under os.tmpdir()):
 *   base/ws            the only writable root (cwd of the tools)
 *   base/ws/sub/       a real directory
 *   base/ws/link-out   -> base/outside            (symlinked directory pointing out)
 *   base/ws/link-file  -> base/outside/existing.txt
 *   base/ws/dangling   -> base/outside/from-dangling.txt (does not exist)
 *   base/ws/loop1 -> loop2 -> loop1                (symlink cycle)
 *   base/outside/existing.txt  "original"
 *   base/outside/home/         HOME of the Bash tool
 *   base/ws-evil/              prefix sibling of the root
 *   base/granted/              used by grant cases
 */
interface Layout {
  base: string;
  ws: string;
  outside: string;
  home: string;
  granted: string;
}

interface EscapeCase {
  name: string;
  tool: "Write" | "Edit" | "Bash";
  input: (p: Layout) => Record<string, unknown>;
  grants?: (p: Layout) => WorkspaceGrant[];
  /** Extra writable roots (besides base/ws). */
  roots?: (p: Layout) => string[];
  /** Environment of the Bash tool, on top of PATH and HOME=base/outside/home. */
  env?: (p: Layout) => Record<string, string>;
  /** Grants put where a tool must not look for them (the host context). */
  contextGrants?: (p: Layout) => WorkspaceGrant[];
  skip?: (p: Layout) => string | false;
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

const NFC = "caf\u00e9";
const NFD = "cafe\u0301";

const escapes: EscapeCase[] = [
  // --- paths: Write and Edit ---------------------------------------------------------------------------
  { name: "relative traversal ../", ...write(() => "../outside/new.txt") },
  { name: "traversal through a real subdirectory", ...write(() => "sub/../../outside/existing.txt") },
  { name: "absolute path outside", ...write(p => `${p.outside}/abs.txt`) },
  { name: "absolute path with .. out of the root", ...write(p => `${p.ws}/../outside/dotdot.txt`) },
  { name: "// and /./ and trailing-slash tricks", ...write(p => `${p.ws}//./..//outside/./slashes.txt`) },
  { name: "symlinked directory inside the root pointing out", ...write(() => "link-out/new.txt") },
  { name: "symlinked file inside the root pointing out", ...write(() => "link-file") },
  { name: "dangling symlink inside the root", ...write(() => "dangling") },
  {
    name: "not-yet-existing parents under a symlinked directory",
    ...write(() => "link-out/newdir/deeper/file.txt"),
  },
  {
    name: "symlink followed by .. (physical parent, not lexical)",
    ...write(() => "link-out/../escaped.txt"),
  },
  { name: "prefix sibling of the root (/ws vs /ws-evil)", ...write(p => `${p.base}/ws-evil/p.txt`) },
  {
    name: "case variant of the root on a case-sensitive file system",
    ...write(p => `${p.base}/WS/case.txt`),
    skip: p => (existsSync(`${p.base}/WS`) ? "the file system is case-insensitive" : false),
  },
  {
    name: "unicode NFD spelling of an NFC root (different directories on this file system)",
    ...write(p => `${p.base}/${NFD}/x.txt`),
    roots: p => [`${p.base}/${NFC}`],
    skip: p => (existsSync(`${p.base}/${NFD}`) ? "the file system normalises unicode names" : false),
  },
  { name: "symlink cycle", ...write(() => "loop1/x.txt") },
  { name: "Edit through traversal", ...edit(() => "../outside/existing.txt") },
  { name: "Edit through a symlinked file", ...edit(() => "link-file") },
  { name: "Edit of an absolute path outside", ...edit(p => `${p.outside}/existing.txt`) },
  // --- grants that must not count ---------------------------------------------------------------------
  {
    name: "grant whose access is not write",
    ...write(p => `${p.outside}/read-grant.txt`),
    grants: p => [{ root: p.outside, access: ["read" as "write"] }],
  },
  {
    name: "grant passed in the host context instead of the query permissions",
    ...write(p => `${p.outside}/context-grant.txt`),
    contextGrants: p => [{ root: p.outside, access: ["write"] }],
  },
  {
    name: "grant with a relative root",
    ...write(() => "../outside/rel-grant.txt"),
    grants: () => [{ root: "../outside", access: ["write"] }],
  },
  {
    name: "grant for a prefix of the directory name (/out vs /outside)",
    ...write(p => `${p.outside}/prefix-grant.txt`),
    grants: p => [{ root: `${p.base}/out`, access: ["write"] }],
  },
  {
    name: "Bash with a grant whose access is not write",
    ...bash(p => `touch ${p.outside}/read-grant-bash.txt`),
    grants: p => [{ root: p.outside, access: ["read" as "write"] }],
  },
  // --- Bash redirections -------------------------------------------------------------------------------
  { name: "redirect >", ...bash(p => `echo x > ${p.outside}/r.txt`) },
  { name: "redirect >> onto an existing file", ...bash(p => `echo x >> ${p.outside}/existing.txt`) },
  { name: "redirect &>", ...bash(p => `echo x &> ${p.outside}/amp.txt`) },
  { name: "redirect >|", ...bash(p => `echo x >| ${p.outside}/clobber.txt`) },
  { name: "redirect 2>", ...bash(p => `ls /nonexistent-dir 2> ${p.outside}/err.txt`) },
  { name: "here-document into a file", ...bash(p => `cat <<EOF > ${p.outside}/heredoc.txt\nhello\nEOF`) },
  { name: "here-string into a file", ...bash(p => `cat <<< hello > ${p.outside}/herestring.txt`) },
  { name: "exec opening a descriptor on a file", ...bash(p => `exec 3> ${p.outside}/fd3.txt`) },
  { name: "redirect through a symlinked directory", ...bash(p => `echo x > ${p.ws}/link-out/via-link.txt`) },
  { name: "redirect onto a dangling symlink", ...bash(() => "echo x > dangling") },
  { name: "redirect to a prefix sibling", ...bash(p => `echo x > ${p.base}/ws-evil/p.txt`) },
  // --- Bash write commands -----------------------------------------------------------------------------
  { name: "tee", ...bash(p => `echo x | tee ${p.outside}/tee.txt`) },
  {
    name: "cp destination outside (after an allowed write)",
    ...bash(p => `echo a > in.txt && cp in.txt ${p.outside}/cp.txt`),
  },
  { name: "cp -r of a directory out", ...bash(p => `cp -r sub ${p.outside}/copied`) },
  { name: "mv a file from outside into the root", ...bash(p => `mv ${p.outside}/existing.txt moved.txt`) },
  { name: "rm", ...bash(p => `rm -f ${p.outside}/existing.txt`) },
  { name: "touch", ...bash(p => `touch ${p.outside}/touched`) },
  { name: "mkdir", ...bash(p => `mkdir -p ${p.outside}/made/deep`) },
  { name: "rmdir", ...bash(p => `rmdir ${p.outside}/home`) },
  { name: "sed -i", ...bash(p => `sed -i s/original/pwned/ ${p.outside}/existing.txt`) },
  {
    name: "sed -i.bak in a flag cluster",
    ...bash(p => `sed -Ei.bak s/original/pwned/ ${p.outside}/existing.txt`),
  },
  { name: "dd of=", ...bash(p => `dd if=/dev/zero of=${p.outside}/dd.bin count=1`) },
  { name: "install", ...bash(p => `install -m 644 /dev/null ${p.outside}/installed`) },
  {
    name: "ln -s to outside, then a write through the new link",
    ...bash(p => `ln -s ${p.outside} new-link && echo x > new-link/via-new-link.txt`),
  },
  {
    name: "ln -s with a relative target climbing out, then a write",
    ...bash(() => "ln -s ../outside rel-link && echo x > rel-link/rel.txt"),
  },
  {
    name: "ln hard link to an outside file, then a write into it",
    ...bash(p => `ln ${p.outside}/existing.txt hard-link && echo pwned > hard-link`),
  },
  { name: "truncate", ...bash(p => `truncate -s 0 ${p.outside}/existing.txt`) },
  { name: "chmod", ...bash(p => `chmod 777 ${p.outside}/existing.txt`) },
  { name: "chmod with a dash mode (-w)", ...bash(p => `chmod -w ${p.outside}/existing.txt`) },
  { name: "find -delete", ...bash(p => `find ${p.outside} -name '*.txt' -delete`) },
  { name: "find -exec rm", ...bash(p => `find ${p.outside} -type f -exec rm {} +`) },
  { name: "curl -o", ...bash(p => `curl -sSo ${p.outside}/c.html file:///dev/null`) },
  { name: "tar -x into outside", ...bash(p => `tar -cf a.tar sub && tar -xf a.tar -C ${p.outside}`) },
  { name: "glob that expands outside", ...bash(p => `rm -f ${p.outside}/*.txt`) },
  { name: "absolute command path /bin/touch", ...bash(p => `/bin/touch ${p.outside}/abs-cmd.txt`) },
  // --- Bash composition ---------------------------------------------------------------------------------
  { name: "after &&", ...bash(p => `true && echo x > ${p.outside}/and.txt`) },
  { name: "after ||", ...bash(p => `false || echo x > ${p.outside}/or.txt`) },
  { name: "after ;", ...bash(p => `echo a; echo x > ${p.outside}/seq.txt`) },
  { name: "in a pipeline stage", ...bash(p => `echo x | cat > ${p.outside}/pipe.txt`) },
  { name: "in a subshell ( )", ...bash(p => `(echo x > ${p.outside}/subshell.txt)`) },
  { name: "in a group { }", ...bash(p => `{ echo x > ${p.outside}/group.txt; }`) },
  { name: "in $( )", ...bash(p => `echo $(echo x > ${p.outside}/cs.txt)`) },
  { name: "in backticks", ...bash(p => `echo \`touch ${p.outside}/bt.txt\``) },
  { name: "in process substitution >( )", ...bash(p => `echo x > >(tee ${p.outside}/ps.txt); sleep 0.2`) },
  { name: "in an if body", ...bash(p => `if true; then touch ${p.outside}/if.txt; fi`) },
  { name: "in a for loop", ...bash(p => `for i in 1 2; do touch ${p.outside}/for-$i.txt; done`) },
  { name: "in a function body", ...bash(p => `f() { touch ${p.outside}/fn.txt; }; f`) },
  { name: "bash -c '…'", ...bash(p => `bash -c 'echo x > ${p.outside}/bash-c.txt'`) },
  { name: "sh -c with flags before -c", ...bash(p => `sh -ec "touch ${p.outside}/sh-c.txt"`) },
  { name: "eval", ...bash(p => `eval "touch ${p.outside}/eval.txt"`) },
  { name: "here-document fed to bash", ...bash(p => `bash <<'EOF'\ntouch ${p.outside}/heredoc-sh.txt\nEOF`) },
  {
    name: "commands piped into sh (cannot be analysed)",
    ...bash(p => `echo "touch ${p.outside}/pipe-sh.txt" | sh`),
  },
  // --- Bash wrappers ------------------------------------------------------------------------------------
  { name: "env prefix", ...bash(p => `env FOO=1 touch ${p.outside}/env.txt`) },
  { name: "sudo prefix", ...bash(p => `sudo -n touch ${p.outside}/sudo.txt`) },
  {
    name: "xargs (arguments from stdin are unknown)",
    ...bash(p => `echo ${p.outside}/xargs.txt | xargs touch`),
  },
  { name: "nice prefix", ...bash(p => `nice -n 5 touch ${p.outside}/nice.txt`) },
  { name: "timeout prefix", ...bash(p => `timeout 5 touch ${p.outside}/timeout.txt`) },
  { name: "env -C into outside", ...bash(p => `env -C ${p.outside} touch env-c.txt`) },
  // --- quoting and expansion tricks ---------------------------------------------------------------------
  {
    name: "quoted command name and target: ec'h'o x > \"…\"",
    ...bash(p => `ec'h'o x > "${p.outside}/quoted.txt"`),
  },
  {
    name: "backslash-escaped command and slashes",
    ...bash(p => `\\touch ${p.outside.replaceAll("/", "\\/")}/escaped.txt`),
  },
  { name: "ANSI-C quoted path $'…'", ...bash(p => `touch $'${p.outside}'/ansi.txt`) },
  { name: '>"$HOME/x" (HOME outside)', ...bash(() => 'echo x >"$HOME/x.txt"') },
  { name: "~/x (HOME outside)", ...bash(() => "echo x > ~/tilde.txt") },
  {
    name: "HOME reassigned by the command itself",
    ...bash(p => `HOME=${p.outside}; echo x > ~/reassigned.txt`),
    env: p => ({ HOME: p.ws }),
  },
  {
    name: "$(echo …)/x command substitution in the target",
    ...bash(p => `echo x > $(echo ${p.outside})/cs-target.txt`),
  },
  {
    name: "environment variable in the target",
    ...bash(() => "echo x > $OUT_DIR/envvar.txt"),
    env: p => ({ OUT_DIR: p.outside }),
  },
  {
    name: "parameter expansion with a default value in the target",
    ...bash(p => `echo x > \${NOPE:-${p.outside}}/default.txt`),
  },
  { name: "command name from a variable", ...bash(p => `CMD=touch; $CMD ${p.outside}/dyn.txt`) },
  { name: "brace expansion reaching outside", ...bash(p => `touch {.,${p.outside}}/brace.txt`) },
  { name: "cd outside then a relative write", ...bash(p => `cd ${p.outside} && echo x > cd.txt`) },
  { name: "cd through a symlink then a relative write", ...bash(() => "cd link-out; touch cd-link.txt") },
  {
    name: "builtin cd outside then a relative write",
    ...bash(p => `builtin cd ${p.outside} && echo x > builtin-cd.txt`),
  },
  {
    name: "eval'd cd carries over to the next command",
    ...bash(p => `eval "cd ${p.outside}"; echo x > eval-cd.txt`),
  },
  {
    name: "cd through CDPATH",
    ...bash(() => "cd outside && echo x > cdpath.txt"),
    env: p => ({ CDPATH: p.base }),
  },
  {
    name: "dd of=~/x (tilde after = is expanded)",
    ...bash(() => "dd if=/dev/zero of=~/dd-tilde.bin count=1"),
  },
  { name: "trap action", ...bash(p => `trap "touch ${p.outside}/trap.txt" EXIT`) },
  { name: "rm through a symlinked directory", ...bash(() => "rm -f link-out/existing.txt") },
  {
    name: "find -L following a symlink out of the root",
    ...bash(() => "find -L . -name existing.txt -delete"),
  },
  { name: "chown -R -L following a symlink out of the root", ...bash(() => "chown -R -L nobody .") },
  {
    name: "cd to an unknown directory then a relative write",
    ...bash(() => 'cd "$SOMEWHERE" && touch unknown-cd.txt'),
    env: p => ({ SOMEWHERE: p.outside }),
  },
];

describe("security: attempted escapes end in permission_denied and leave the outside untouched", () => {
  let p: Layout;

  beforeEach(() => {
    const base = tempDir("escape-");
    p = {
      base,
      ws: `${base}/ws`,
      outside: `${base}/outside`,
      home: `${base}/outside/home`,
      granted: `${base}/granted`,
    };
    mkdirSync(`${p.ws}/sub`, { recursive: true });
    mkdirSync(p.home, { recursive: true });
    mkdirSync(`${base}/ws-evil`);
    mkdirSync(p.granted);
    mkdirSync(`${base}/${NFC}`);
    writeFileSync(`${p.outside}/existing.txt`, "original");
    symlinkSync(p.outside, `${p.ws}/link-out`);
    symlinkSync(`${p.outside}/existing.txt`, `${p.ws}/link-file`);
    symlinkSync(`${p.outside}/from-dangling.txt`, `${p.ws}/dangling`);
    symlinkSync(`${p.ws}/loop2`, `${p.ws}/loop1`);
    symlinkSync(`${p.ws}/loop1`, `${p.ws}/loop2`);
  });

  it("has at least 40 cases", () => {
    expect(escapes.length).toBeGreaterThanOrEqual(40);
  });

  it.each(escapes)("$tool: $name", async attempt => {
    const skipped = attempt.skip?.(p);
    if (skipped) {
      console.warn(`skipped "${attempt.name}": ${skipped}`);
      return;
    }
    const tools = toolsFor({
      cwd: p.ws,
      allowedDirectories: [p.ws, ...(attempt.roots?.(p) ?? [])],
      bash: { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: p.home, ...attempt.env?.(p) } },
    });
    const outsideBefore = outsideOfRoot(p);
    const result = await call(tools[attempt.tool], attempt.input(p), {
      ...(attempt.grants ? { grants: attempt.grants(p) } : {}),
      ...(attempt.contextGrants ? { context: { workspaceGrants: attempt.contextGrants(p) } } : {}),
    });
    expect(result.isError).toBe(true);
    const details = denial(result);
    expect(details).toMatchObject({ code: "permission_denied", tool: attempt.tool });
    expect(details.allowedRoots).toContain(p.ws);
    expect(typeof details.suggestedNextStep).toBe("string");
    expect(outsideOfRoot(p)).toEqual(outsideBefore);
    expect(readFileSync(`${p.outside}/existing.txt`, "utf8")).toBe("original");
  });
});

/** Everything under base except the writable root's own contents (the symlinks in it are part of setup). */
function outsideOfRoot(p: Layout): Record<string, string> {
  const all = snapshot(p.base);
  return Object.fromEntries(
    Object.entries(all).filter(([path]) => !path.startsWith("./ws/") || isSetupLink(path)),
  );
}

function isSetupLink(path: string): boolean {
  return ["./ws/link-out", "./ws/link-file", "./ws/dangling", "./ws/loop1", "./ws/loop2"].includes(path);
}

interface AllowedCase {
  name: string;
  setup?: (p: Layout) => void;
  tool: "Write" | "Edit" | "Bash";
  input: (p: Layout) => Record<string, unknown>;
  grants?: (p: Layout) => WorkspaceGrant[];
  env?: (p: Layout) => Record<string, string>;
  /** The file that must exist afterwards, and its content. */
  expect: (p: Layout) => [path: string, content: string | RegExp] | undefined;
}

const allowed: AllowedCase[] = [
  {
    name: "Write inside the root",
    tool: "Write",
    input: () => ({ file_path: "new.txt", content: "ok" }),
    expect: p => [`${p.ws}/new.txt`, "ok"],
  },
  {
    name: "Write creates missing parents inside the root",
    tool: "Write",
    input: () => ({ file_path: "a/b/c.txt", content: "deep" }),
    expect: p => [`${p.ws}/a/b/c.txt`, "deep"],
  },
  {
    name: "Write inside a granted root",
    tool: "Write",
    input: p => ({ file_path: `${p.granted}/g.txt`, content: "granted" }),
    grants: p => [{ root: p.granted, access: ["write"], reason: "shared deliverables" }],
    expect: p => [`${p.granted}/g.txt`, "granted"],
  },
  {
    name: "Edit inside a granted root",
    tool: "Edit",
    input: p => ({ file_path: `${p.granted}/e.txt`, old_string: "", new_string: "created by edit" }),
    grants: p => [{ root: p.granted, access: ["write"] }],
    expect: p => [`${p.granted}/e.txt`, "created by edit"],
  },
  {
    name: "Bash redirect inside the root",
    tool: "Bash",
    input: () => ({ command: "echo ok > b.txt" }),
    expect: p => [`${p.ws}/b.txt`, "ok\n"],
  },
  {
    name: "Bash write inside a granted root",
    tool: "Bash",
    input: p => ({ command: `echo ok > ${p.granted}/b.txt` }),
    grants: p => [{ root: p.granted, access: ["write"] }],
    expect: p => [`${p.granted}/b.txt`, "ok\n"],
  },
  {
    name: "Bash > /dev/null",
    tool: "Bash",
    input: () => ({ command: "echo x > /dev/null && echo done > d.txt" }),
    expect: p => [`${p.ws}/d.txt`, "done\n"],
  },
  {
    name: "Bash 2>/dev/null, &>/dev/null, >/dev/stderr and tee /dev/null",
    tool: "Bash",
    input: () => ({
      command:
        "ls /nonexistent 2>/dev/null; echo a &>/dev/null; echo b >/dev/stderr; echo c | tee /dev/null > t.txt",
    }),
    expect: p => [`${p.ws}/t.txt`, "c\n"],
  },
  {
    name: "Bash cd into a subdirectory then a relative write",
    tool: "Bash",
    input: () => ({ command: "cd sub && echo ok > in-sub.txt" }),
    expect: p => [`${p.ws}/sub/in-sub.txt`, "ok\n"],
  },
  {
    name: "Bash mkdir with brace expansion",
    tool: "Bash",
    input: () => ({ command: "mkdir -p m/{a,b}" }),
    expect: p => [`${p.ws}/m/b`, /.*/],
  },
  {
    name: "Bash ~ and $PWD expand to allowed paths",
    tool: "Bash",
    input: () => ({ command: 'echo a > ~/home.txt && echo b > "$PWD/pwd.txt"' }),
    env: p => ({ HOME: p.ws }),
    expect: p => [`${p.ws}/pwd.txt`, "b\n"],
  },
  {
    name: "Bash glob inside the root",
    tool: "Bash",
    input: () => ({ command: "touch a.tmp b.tmp && rm -f *.tmp && echo gone > g.txt" }),
    expect: p => [`${p.ws}/g.txt`, "gone\n"],
  },
  {
    name: "Bash rm of a symlink inside the root removes the link, not its outside target",
    setup: p => symlinkSync(`${p.outside}/existing.txt`, `${p.ws}/to-outside`),
    tool: "Bash",
    input: () => ({ command: "rm to-outside && echo removed > r.txt" }),
    expect: p => [`${p.outside}/existing.txt`, "original"],
  },
  {
    name: "Bash sed -i, cp and mv inside the root",
    tool: "Bash",
    input: () => ({
      command: "echo old > s.txt && sed -i s/old/new/ s.txt && cp s.txt c.txt && mv c.txt sub/m.txt",
    }),
    expect: p => [`${p.ws}/sub/m.txt`, "new\n"],
  },
];

describe("security: writes inside the roots and granted roots succeed", () => {
  let p: Layout;

  beforeEach(() => {
    const base = tempDir("allowed-");
    p = {
      base,
      ws: `${base}/ws`,
      outside: `${base}/outside`,
      home: `${base}/outside/home`,
      granted: `${base}/granted`,
    };
    mkdirSync(`${p.ws}/sub`, { recursive: true });
    mkdirSync(p.home, { recursive: true });
    mkdirSync(p.granted);
    writeFileSync(`${p.outside}/existing.txt`, "original");
  });

  it.each(allowed)("$tool: $name", async entry => {
    entry.setup?.(p);
    const tools = toolsFor({
      cwd: p.ws,
      allowedDirectories: [p.ws],
      bash: { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: p.home, ...entry.env?.(p) } },
    });
    const result = await call(
      tools[entry.tool],
      entry.input(p),
      entry.grants ? { grants: entry.grants(p) } : {},
    );
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    const expected = entry.expect(p);
    if (expected) {
      const [path, content] = expected;
      expect(existsSync(path)).toBe(true);
      if (typeof content === "string") expect(readFileSync(path, "utf8")).toBe(content);
    }
  });
});
