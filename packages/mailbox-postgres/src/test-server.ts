/**
 * @agent-lattice/mailbox-postgres/test-server — a throwaway PostgreSQL server for tests and examples: a temporary
 * data directory (initdb), a free loopback port, trust authentication, started with pg_ctl and removed on stop().
 * Needs PostgreSQL's server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/<version>/bin. PostgreSQL
 * refuses to run as root: as root the server runs as an unprivileged user (`osUser`, default "postgres"; create
 * one with `useradd --system postgres` if the machine has none). A watchdog stops the server and deletes its
 * directory if this process dies without calling stop().
 */
import { execFile, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

export interface TemporaryPostgresOptions {
  /** Loopback port; default a free one. */
  port?: number;
  /** As root: the unprivileged user the server runs as. Default $AGENT_LATTICE_PG_OS_USER or "postgres". */
  osUser?: string;
  /** Extra server settings (`-c name=value`), e.g. { fsync: "off" } for faster, non-durable test runs. */
  settings?: Record<string, string | number>;
}

export interface TemporaryPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** The temporary directory: data/, the server log, the socket. */
  directory: string;
  /**
   * Restarts the server on the same port and data (pg_ctl restart, fast mode): every connection is closed with
   * "terminating connection due to administrator command", then refused until the server is back. For tests of
   * reconnection.
   */
  restart(): Promise<void>;
  /** Stops the server and deletes its directory. Idempotent. */
  stop(): Promise<void>;
}

export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

/** initdb and pg_ctl from PATH, else from the newest /usr/lib/postgresql/<version>/bin; undefined when absent. */
export function findPostgresBinaries(): PostgresBinaries | undefined {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  const installed = "/usr/lib/postgresql";
  if (existsSync(installed)) {
    const versions = readdirSync(installed)
      .filter(name => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map(version => join(installed, version, "bin")));
  }
  for (const dir of dirs) {
    const initdb = join(dir, "initdb");
    const pgCtl = join(dir, "pg_ctl");
    if (existsSync(initdb) && existsSync(pgCtl)) return { initdb, pgCtl };
  }
  return undefined;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stderr}${stdout}`));
      else resolve(stdout);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Starts a throwaway PostgreSQL server; see the module comment. */
export async function startTemporaryPostgres(
  options: TemporaryPostgresOptions = {},
): Promise<TemporaryPostgres> {
  const binaries = findPostgresBinaries();
  if (!binaries) {
    throw new Error(
      "startTemporaryPostgres(): PostgreSQL's server binaries (initdb, pg_ctl) were not found on PATH or in /usr/lib/postgresql/*/bin. Install PostgreSQL (Debian: apt-get install postgresql) or point the tests at a server with AGENT_LATTICE_PG_URL.",
    );
  }
  const root = process.getuid?.() === 0;
  const osUser = options.osUser ?? process.env.AGENT_LATTICE_PG_OS_USER ?? "postgres";
  let ids: { uid: number; gid: number } | undefined;
  if (root) {
    try {
      ids = {
        uid: Number((await run("id", ["-u", osUser])).trim()),
        gid: Number((await run("id", ["-g", osUser])).trim()),
      };
    } catch {
      throw new Error(
        `startTemporaryPostgres(): running as root, and PostgreSQL refuses to run as root; the unprivileged user "${osUser}" it would run as does not exist. Create one (useradd --system ${osUser}) or name another with AGENT_LATTICE_PG_OS_USER.`,
      );
    }
  }
  // As root, run the server's tools as the unprivileged user (runuser is util-linux; su where it is missing).
  const asUser = (command: string, args: string[]): [string, string[]] => {
    if (!root) return [command, args];
    if (existsSync("/usr/sbin/runuser") || existsSync("/sbin/runuser"))
      return ["runuser", ["-u", osUser, "--", command, ...args]];
    const quoted = [command, ...args].map(arg => `'${arg.replace(/'/g, "'\\''")}'`).join(" ");
    return ["su", ["-s", "/bin/sh", osUser, "-c", quoted]];
  };

  const directory = mkdtempSync(join(tmpdir(), "agent-lattice-pg-"));
  if (ids) chownSync(directory, ids.uid, ids.gid);
  chmodSync(directory, 0o700);
  const data = join(directory, "data");
  const log = join(directory, "server.log");
  let started = false;
  const stopNow = async () => {
    if (started) {
      await run(...asUser(binaries.pgCtl, ["-D", data, "stop", "-m", "fast", "-w", "-t", "30"])).catch(() =>
        run(...asUser(binaries.pgCtl, ["-D", data, "stop", "-m", "immediate", "-w"])).catch(() => {}),
      );
    }
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await run(
      ...asUser(binaries.initdb, [
        "-D",
        data,
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-locale",
        "--no-sync",
      ]),
    );
    const port = options.port ?? (await freePort());
    const settings: Record<string, string | number> = {
      listen_addresses: "127.0.0.1",
      unix_socket_directories: directory,
      max_connections: 200,
      ...options.settings,
    };
    const serverArgs = [`-p ${port}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(" ");
    await run(
      ...asUser(binaries.pgCtl, ["-D", data, "-l", log, "-w", "-t", "60", "-o", serverArgs, "start"]),
    );
    started = true;
    watchdog(asUser(binaries.pgCtl, ["-D", data, "stop", "-m", "immediate"]), directory);
    let stopping: Promise<void> | undefined;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      directory,
      restart: async () => {
        await run(
          ...asUser(binaries.pgCtl, [
            "-D",
            data,
            "-l",
            log,
            "-w",
            "-t",
            "60",
            "-m",
            "fast",
            "-o",
            serverArgs,
            "restart",
          ]),
        );
      },
      stop: () => {
        stopping ??= stopNow();
        return stopping;
      },
    };
  } catch (error) {
    const tail = existsSync(log) ? `\nserver log:\n${readFileSync(log, "utf8").slice(-2000)}` : "";
    await stopNow();
    throw new Error(`startTemporaryPostgres(): ${(error as Error).message}${tail}`, { cause: error });
  }
}

/** A detached shell that stops the server and deletes its directory once this process is gone. */
function watchdog([command, args]: [string, string[]], directory: string): void {
  const quote = (arg: string) => `'${arg.replace(/'/g, "'\\''")}'`;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${[command, ...args].map(quote).join(" ")} >/dev/null 2>&1; rm -rf ${quote(directory)}`;
  const child = spawn("/bin/sh", ["-c", script], { detached: true, stdio: "ignore" });
  child.unref();
}
