import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface PackageInfo {
  /** The directory name under packages/. */
  dir: string;
  name: string;
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  exports: Record<string, unknown>;
}

export const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

export function packageInfo(dir: string): PackageInfo & { private?: boolean } {
  const pkg = readJson(join(ROOT, "packages", dir, "package.json"));
  return {
    dir,
    name: pkg.name,
    version: pkg.version,
    private: pkg.private,
    dependencies: pkg.dependencies ?? {},
    peerDependencies: pkg.peerDependencies ?? {},
    peerDependenciesMeta: pkg.peerDependenciesMeta ?? {},
    exports: pkg.exports ?? {},
  };
}

const run = promisify(execFile);

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command, never throwing on a non-zero exit: the result says how it went (for assertion messages). */
export async function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      timeout: options.timeoutMs ?? 600_000,
      maxBuffer: 64 * 1024 * 1024,
      encoding: "utf8",
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof failed.code === "number" ? failed.code : 1,
      stdout: failed.stdout ?? "",
      stderr: `${failed.stderr ?? ""}\n${failed.message}`,
    };
  }
}

/** A run's output for an assertion message, cut to what fits on a screen. */
export function explain(result: RunResult): string {
  const text = `exit ${result.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
  return text.length > 8000 ? `${text.slice(0, 2000)}\n…\n${text.slice(-6000)}` : text;
}
