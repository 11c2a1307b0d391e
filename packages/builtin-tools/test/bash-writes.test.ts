import { isAbsolute, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Finding, findWrites, type ShellParser } from "../src/bash/parse-writes.js";
import { loadShellParser } from "../src/bash/parser.js";

/**
 * Unit tests of Bash write detection on the syntax tree alone (nothing runs, nothing is resolved on disk).
 * Each finding is shown as "<why> <path>" — relative paths joined to every possible working directory —
 * "<why> ?" when the target is only known at run time, or "opaque" for code that cannot be analysed.
 */
let parser: ShellParser;
beforeAll(async () => {
  parser = await loadShellParser();
});

function writes(command: string): string[] {
  return findWrites(command, { cwd: "/w", home: "/home/u", parser }).flatMap(describeFinding);
}

function describeFinding(finding: Finding): string[] {
  if (finding.type === "opaque") return ["opaque"];
  if (finding.type === "entries") return ["entries"];
  if (finding.type === "option-glob") return ["option-glob"];
  if (!finding.arg.evaluated.known) return [`${finding.why} ?`];
  return finding.arg.evaluated.candidates.flatMap(candidate => {
    const shown = candidate.glob !== undefined ? `${candidate.value} (glob)` : candidate.value;
    if (isAbsolute(candidate.value)) return [`${finding.why} ${shown}`];
    if ("unknown" in finding.cwd) return [`${finding.why} ? (cwd unknown)`];
    return finding.cwd.dirs.map(dir => `${finding.why} ${resolve(dir, shown)}`);
  });
}

const detected: Array<[command: string, expected: string[]]> = [
  ["echo a > f", ["redirection > /w/f"]],
  ["echo a >> f", ["redirection >> /w/f"]],
  ["echo a &> f", ["redirection &> /w/f"]],
  ["echo a &>> f", ["redirection &>> /w/f"]],
  ["echo a >| f", ["redirection >| /w/f"]],
  ["ls 2> err", ["redirection > /w/err"]],
  ["cat 0<> f", ["redirection <> /w/f"]],
  ["echo a >& f", ["redirection >& /w/f"]],
  ["echo a >&2; echo b 2>&1; exec 3>&-", []],
  ["cat <<EOF > f\nbody\nEOF", ["redirection > /w/f"]],
  ["cat <<< text > f", ["redirection > /w/f"]],
  ["echo a | tee -a f g", ["tee operand /w/f", "tee operand /w/g"]],
  ["cp -r a b dest", ["cp destination /w/dest", "entries"]],
  ["cp -t dir a b", ["cp -t directory /w/dir"]],
  ["cp -l /src/a b", ["cp destination /w/b", "cp --link/--symbolic-link source /src/a"]],
  ["mv a b", ["mv source /w/a", "mv destination /w/b", "entries"]],
  ["mv -t dir a", ["mv source /w/a", "mv destination /w/dir", "entries"]],
  ["rm -rf a b", ["rm operand /w/a", "rm operand /w/b"]],
  ["touch -d yesterday a", ["touch operand /w/a"]],
  ["mkdir -p -m 755 a/b", ["mkdir operand /w/a/b"]],
  ["rmdir a", ["rmdir operand /w/a"]],
  ["sed -i s/a/b/ f", ["sed -i file /w/f"]],
  ["sed -ie s/a/b/ f", ["sed -i file /w/f"]],
  ["sed -n -e p --in-place=.bak f g", ["sed -i file /w/f", "sed -i file /w/g"]],
  ["sed s/a/b/ f", []],
  ["sed 's/a/b/w /etc/x' f", ["sed w file /etc/x"]],
  ["sed -n '/x/w out.txt' f", ["sed w file /w/out.txt"]],
  ["sed --in-pl s/a/b/ f", ["sed -i file /w/f"]],
  ["cp --target=/x a", ["cp -t directory /x"]],
  ["cp --t /x a", ["cp -t directory /x"]],
  ["chmod --ref=a /x/b", ["chmod operand /x/b"]],
  ["sort -o /x/s f", ["sort -o /x/s"]],
  ["sort --outp=/x/s f", ["sort -o /x/s"]],
  ["uniq f /x/u", ["uniq output file /x/u"]],
  ["shuf -o /x/s f", ["shuf -o /x/s"]],
  ["iconv -f utf8 -t ascii -o /x/i f", ["iconv -o /x/i"]],
  ["link /x/a b", ["link target /x/a", "link name /w/b"]],
  ["rmdir -p a/b", ["rmdir operand /w/a/b", "rmdir -p parent /w/a"]],
  ["touch {~,.}/x", ["opaque"]],
  ["dd if=a of=b bs=1", ["dd of= /w/b"]],
  ["install -m 644 a /opt/b", ["install destination /opt/b"]],
  ["install -d x y", ["install -d operand /w/x", "install -d operand /w/y"]],
  ["ln -s target link", ["ln link name /w/link", "ln -s target /w/target"]],
  ["truncate -s 0 f", ["truncate operand /w/f"]],
  ["chmod -R 755 d", ["chmod operand /w/d"]],
  ["chmod u+x f", ["chmod operand /w/f"]],
  ["chown -R me:me d", ["chown operand /w/d"]],
  ["chgrp staff f", ["chgrp operand /w/f"]],
  [
    "true && echo > a || echo > b; echo > c",
    ["redirection > /w/a", "redirection > /w/b", "redirection > /w/c"],
  ],
  ["(echo > a) | { tee b; }", ["redirection > /w/a", "tee operand /w/b"]],
  ["echo $(touch a) `touch b`", ["touch operand /w/a", "touch operand /w/b"]],
  ["bash -c 'echo > a'", ["redirection > /w/a"]],
  ['sh -xc "rm b"', ["rm operand /w/b"]],
  ["env -i LANG=C nice -n 5 timeout 3 nohup stdbuf -o0 touch a", ["touch operand /w/a"]],
  ["xargs -I{} cp {} /dest", ["opaque"]],
  ["find . -name x | xargs rm", ["opaque"]],
  ["find src -name '*.o' -delete", ["find -delete (every file under the start path) /w/src"]],
  ["find /d -exec rm {} \\;", ["rm operand /d/{}"]],
  ["find . -fprint out.txt", ["find -fprint /w/out.txt"]],
  ["watch -n 1 touch a", ["touch operand /w/a"]],
  ["dd if=x of=~/y", ["dd of= /home/u/y"]],
  ["find -L . -delete", ["opaque"]],
  ["find . -follow -exec rm {} +", ["opaque"]],
  ["chown -RL me d", ["opaque"]],
  ["echo 'touch a' | bash", ["opaque"]],
  [
    'echo > ~/x; echo > $HOME/y; echo > "$' + '{HOME}/z"',
    ["redirection > /home/u/x", "redirection > /home/u/y", "redirection > /home/u/z"],
  ],
  ['echo > "~/x"', ["redirection > /w/~/x"]],
  ["echo > $PWD/x", ["redirection > /w/x"]],
  ["echo > ~other/x", ["redirection > ?"]],
  ["echo > $X/y", ["redirection > ?"]],
  ["echo > $(pwd)/y", ["redirection > ?"]],
  ["HOME=/tmp; echo > ~/x", ["redirection > ?"]],
  ["touch {a,b}.txt", ["touch operand /w/a.txt", "touch operand /w/b.txt"]],
  ["touch f{1..3}", ["touch operand /w/f1", "touch operand /w/f2", "touch operand /w/f3"]],
  ["rm ./*.o", ["rm operand /w/*.o (glob)"]],
  ["set -euo pipefail; set +x -o nounset; echo > f", ["redirection > /w/f"]],
  ["rm *.o", ["option-glob", "rm operand /w/*.o (glob)"]],
  ["rm '*.o'", ["rm operand /w/*.o"]],
  ["$CMD x", ["opaque"]],
  ["/usr/bin/rm x", ["rm operand /w/x"]],
  ["if true; then echo > a; fi; case x in x) touch b;; esac", ["redirection > /w/a", "touch operand /w/b"]],
];

describe("Bash write detection: forms that are detected", () => {
  it.each(detected)("%j", (command, expected) => {
    expect(writes(command)).toEqual(expected);
  });
});

describe("Bash write detection: working directory tracking", () => {
  it("cd DIR && … writes only in DIR", () => {
    expect(writes("cd sub && echo > f")).toEqual(["redirection > /w/sub/f"]);
  });

  it("cd DIR; … may write in either directory (cd can fail)", () => {
    expect(writes("cd sub; echo > f")).toEqual(["redirection > /w/f", "redirection > /w/sub/f"]);
  });

  it("cd inside a subshell or a pipeline does not leak out", () => {
    expect(writes("(cd sub) && echo > f; cd a | true; echo > g")).toEqual([
      "redirection > /w/f",
      "redirection > /w/g",
    ]);
  });

  it("an unresolvable cd makes later relative targets unknown, absolute ones stay checked", () => {
    expect(writes("cd $X && echo > f && echo > /abs")).toEqual([
      "redirection > ? (cwd unknown)",
      "redirection > /abs",
    ]);
  });

  it("cd with no argument goes HOME, cd - is unknown", () => {
    expect(writes("cd && echo > f")).toEqual(["redirection > /home/u/f"]);
    expect(writes("cd - && echo > f")).toEqual(["redirection > ? (cwd unknown)"]);
  });

  it("a function definition is not modeled (it can shadow any command and run from anywhere)", () => {
    expect(writes("f() { echo > x; }")).toEqual(["opaque"]);
  });

  it("a loop that changes directory makes relative targets unknown", () => {
    expect(writes("for d in a b; do cd sub; echo > x; done")).toContain("redirection > ? (cwd unknown)");
  });

  it("builtin cd, builtin -- cd, command cd and command -p cd are tracked; eval is not modeled", () => {
    expect(writes("builtin cd /x && echo > f")).toEqual(["redirection > /x/f"]);
    expect(writes("builtin -- cd /x && echo > f")).toEqual(["redirection > /x/f"]);
    expect(writes("command cd /x && echo > f")).toEqual(["redirection > /x/f"]);
    expect(writes("command -p cd /x && echo > f")).toEqual(["redirection > /x/f"]);
    expect(writes("cd -- /x && echo > f")).toEqual(["redirection > /x/f"]);
    expect(writes("eval 'cd /x'; echo > f")).toContain("opaque");
  });

  it("with CDPATH set, cd into a bare name makes the directory unknown (./ and ../ are not searched)", () => {
    const withCdpath = (command: string) =>
      findWrites(command, { cwd: "/w", home: "/home/u", cdpath: "/etc", parser }).flatMap(describeFinding);
    expect(withCdpath("cd sub && echo > f")).toEqual(["redirection > ? (cwd unknown)"]);
    expect(withCdpath("cd ./sub && echo > f")).toEqual(["redirection > /w/sub/f"]);
    expect(writes("CDPATH=/etc; cd sub && echo > f")).toEqual(["redirection > ? (cwd unknown)"]);
  });

  it("pushd DIR is tracked like cd; pushd +N and popd make the directory unknown", () => {
    expect(writes("pushd /x && echo > f")).toEqual(["redirection > /x/f"]);
    expect(writes("pushd +1 && echo > f")).toEqual(["redirection > ? (cwd unknown)"]);
  });

  it("env -C DIR runs the wrapped command in DIR", () => {
    expect(writes("env -C /d touch f")).toEqual(["touch operand /d/f"]);
  });
});

/** Commands whose writes cannot be known from their text: not modeled, so refused without the sandbox. */
const notModeled: string[] = [
  "python3 -c \"open('/etc/x', 'w')\"",
  "node -e \"require('fs').writeFileSync('/etc/x', '')\"",
  "awk '{ print > \"/etc/x\" }' f",
  "perl -pi -e s/a/b/ /etc/x",
  "bash script.sh",
  "source script.sh",
  "git -C /etc/repo checkout .",
  "npm install --prefix /etc/x",
  "make -C /etc",
  "rsync -a src/ /etc/x/",
  "unzip a.zip -d /etc",
  "patch -p1 < fix.diff",
  "mktemp",
  "eval 'touch a'",
  "trap 'touch a' EXIT",
  "su -c 'rm a' root",
  "sudo touch a",
  "bash <<'EOF'\ntouch a\nEOF",
  "bash -s x <<< 'touch a'",
  "{ bash; } <<< 'touch a'",
  "tar -xzf a.tgz -C out",
  "curl -sSL -o out.html https://x",
  "wget https://x",
  "chroot / touch a",
  "taskset -c 0 touch a",
  "setpriv touch a",
  "unshare touch a",
  "runuser -u root -- touch a",
  "script -qc 'touch a' /dev/null",
  "setarch x86_64 touch a",
  "prlimit --nofile=100 touch a",
  "split -b 1 f p-",
  "csplit f 1",
  "fallocate -l 1 a",
  "gzip a",
  "cp --no-such-option a b",
  "cp --re a b",
  "shopt -s lastpipe",
  "set -P",
  "set -m",
  "set -euo posix",
  "set -eP",
  "alias ls=rm",
  "hash -p /bin/rm ls",
  "PS4='$(touch a)'; set -x; true",
  "x='a[$(touch a)]'; echo $((x))",
  "read x; echo $((x + 1))",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
  "echo ${!x}",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
  "echo ${x@P}",
  "mapfile -C 'touch a' -c 1 arr",
  "env 'BASH_FUNC_ls%%=() { touch a; }' bash -c ls",
  "LD_PRELOAD=./x.so ls",
  "export LD_PRELOAD=./x.so",
  "history -w h",
  'printf -v "$n" x',
  "./run.sh",
  "kill 1",
  "awk 'BEGIN { system(\"touch a\") }'",
  "sed 's/a/b/e' f",
  "sed -f script.sed f",
  "zsh -c 'touch a'",
  "bash -lc 'true'",
];

describe("Bash analyser: commands it does not model are reported, never assumed harmless", () => {
  it.each(notModeled)("%j", command => {
    expect(writes(command)).toContain("opaque");
  });
});
