import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reusableBetterSqlite3 } from "./native-build.js";
import { explain, type RunResult, runCommand } from "./workspace.js";

/** An empty npm project in the OS temp directory, far from the workspace, where packages install as for a user. */
export interface NpmProject {
  dir: string;
  /** Runs node with the project as the working directory. */
  node(args: string[], env?: NodeJS.ProcessEnv): Promise<RunResult>;
  /** Where `name` is installed, with symlinks resolved (proves it is a real copy, not a workspace link). */
  installedPath(name: string): string;
  write(file: string, text: string): string;
  remove(): void;
}

/** `npm install`s the given tarballs and registry specs (e.g. "zod@3.25.76") together, as a user would. */
export async function createNpmProject(specs: string[]): Promise<NpmProject> {
  const dir = mkdtempSync(join(tmpdir(), "al-npm-"));
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "user-project", private: true }, null, 2)}\n`,
  );
  // A fresh install outside the workspace: no workspace links, no pnpm, dependencies from the registry
  // (npm's cache keeps repeated runs fast). Install scripts run, as for a user (better-sqlite3 compiles) — except
  // when the project asks for the exact better-sqlite3 the workspace already compiled: that addon is reused.
  const reused = reusableBetterSqlite3(specs);
  const install = await runCommand(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "--loglevel=error",
      ...(reused ? ["--ignore-scripts"] : []),
      ...specs,
    ],
    { cwd: dir, env: { npm_config_nodedir: process.env.npm_config_nodedir ?? "/usr" } },
  );
  if (install.code !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`npm install ${specs.join(" ")} failed:\n${explain(install)}`);
  }
  reused?.installInto(dir);
  return {
    dir,
    node: (args, env) => runCommand(process.execPath, args, { cwd: dir, env, timeoutMs: 120_000 }),
    installedPath: name => realpathSync(join(dir, "node_modules", name)),
    write(file, text) {
      const path = join(dir, file);
      writeFileSync(path, text);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The lowest and the highest published version in a semver range, e.g. zod "^3.25.76 || ^4". */
export async function rangeEnds(name: string, range: string): Promise<[string, string]> {
  const view = await runCommand("npm", ["view", `${name}@${range}`, "version", "--json"], {
    cwd: tmpdir(),
  });
  if (view.code !== 0) throw new Error(`npm view ${name}@${range} failed:\n${explain(view)}`);
  const parsed = JSON.parse(view.stdout) as string | string[];
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter(v => !v.includes("-"));
  const order = (a: string, b: string) => {
    const [x, y] = [a, b].map(v => v.split(".").map(Number)) as [number[], number[]];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
    return 0;
  };
  versions.sort(order);
  if (!versions.length) throw new Error(`no published version of ${name} satisfies ${range}`);
  return [versions[0] as string, versions.at(-1) as string];
}
