import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { explain, ROOT, runCommand } from "./workspace.js";

/**
 * A copy of the repository as a fresh clone of this working tree would have it: the files git tracks plus new
 * files not ignored (so uncommitted work is checked too), and nothing else — no node_modules, dist/ or turbo cache.
 */
export async function cleanCopy(): Promise<string> {
  const listed = await runCommand("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
  });
  if (listed.code !== 0) throw new Error(`git ls-files failed:\n${explain(listed)}`);
  const copy = join(mkdtempSync(join(tmpdir(), "al-clone-")), "repo");
  for (const file of new Set(listed.stdout.split("\0").filter(Boolean))) {
    const from = join(ROOT, file);
    if (!existsSync(from)) continue; // deleted in the working tree, not yet committed
    const to = join(copy, file);
    mkdirSync(dirname(to), { recursive: true });
    if (lstatSync(from).isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else copyFileSync(from, to);
  }
  return copy;
}
