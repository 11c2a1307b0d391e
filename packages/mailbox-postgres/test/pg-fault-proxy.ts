// A TCP proxy between node-postgres clients (in other processes) and the test server that can drop a connection at
// an exact point of the protocol: it reads the PostgreSQL wire protocol just enough to know each connection's
// application_name and backend pid, which prepared statement or simple query a client is running, and when the
// server answered it. A fault terminates the backend with pg_terminate_backend() — a real server-side drop: the
// client reads "57P01 terminating connection due to administrator command" (through pg.Pool, sometimes "Connection
// terminated unexpectedly" first) — either before the statement reaches the server (it never ran) or after the
// server answered it but before the answer reaches the client (it ran and committed; the client cannot know). No
// timers: every step waits on the protocol.
import { once } from "node:events";
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import pg from "pg";

/** One client message the proxy saw, as a fault rule matches it. */
export interface ClientStatement {
  /** "P" Parse, "B" Bind, "Q" simple query. */
  type: "P" | "B" | "Q";
  /** The prepared statement's name (Parse, Bind); "" for a simple query. */
  statement: string;
  /** SQL text (Parse, simple query); "" for Bind. */
  text: string;
  /** Bind's parameter bytes as latin1 text (to match a mailbox id); "" otherwise. */
  params: string;
}

export interface ProxiedConnection {
  readonly id: number;
  /** application_name from the startup message: tests name each process's connections. */
  readonly app: string;
  /** The backend's pid (BackendKeyData). */
  pid: number | undefined;
  /** A LISTEN on this connection was answered. */
  listening: boolean;
  /** Neither side has closed yet. */
  readonly open: boolean;
  /** Both sides are gone. */
  readonly ended: Promise<void>;
}

/**
 * What to do when a statement matches: drop the connection before the server sees it or after the server answered
 * it, or only observe (resolve once the server answered; nothing is changed).
 */
export type FaultAction = "terminate-before" | "terminate-after" | "observe";

export interface FaultRule {
  app: string;
  match: (statement: ClientStatement) => boolean;
  action: FaultAction;
  /** terminate-after and observe: fire only when the answer carried at least one data row (a claim that took a message). */
  onlyWithRows?: boolean;
}

/** Resolves when the rule fired and (for a fault) the client has been told its connection is gone. */
export interface ArmedRule {
  fired: Promise<ProxiedConnection>;
}

interface Rule extends FaultRule {
  resolve: (connection: ProxiedConnection) => void;
}

/** Matches a prepared statement of the mailbox by its name's suffix (e.g. "claim_next", "settle", "renew"). */
export function statementNamed(suffix: string, params?: string): (statement: ClientStatement) => boolean {
  return statement =>
    (statement.type === "P" || statement.type === "B") &&
    new RegExp(`_${suffix}$`).test(statement.statement) &&
    (params === undefined || statement.type !== "B" || statement.params.includes(params));
}

/** Matches a simple-protocol LISTEN. */
export const listenQuery = (statement: ClientStatement) =>
  statement.type === "Q" && /^LISTEN /i.test(statement.text);

export class PgFaultProxy {
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #admin: pg.Pool;
  readonly #rules: Rule[] = [];
  readonly #connections: Connection[] = [];
  readonly #changed = new Set<() => void>();
  #nextId = 1;
  #port = 0;

  private constructor(server: Server, target: { host: string; port: number }, adminUrl: string) {
    this.#server = server;
    this.#target = target;
    this.#admin = new pg.Pool({ connectionString: adminUrl, max: 2 });
  }

  /** Starts a proxy on a free loopback port in front of the server at `url`. */
  static async start(url: string): Promise<PgFaultProxy> {
    const parsed = new URL(url);
    const target = { host: parsed.hostname, port: Number(parsed.port || 5432) };
    const server = createServer();
    const proxy = new PgFaultProxy(server, target, url);
    server.on("connection", socket => proxy.#accept(socket));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const address = server.address();
    proxy.#port = typeof address === "object" && address ? address.port : 0;
    return proxy;
  }

  /** A connection string through the proxy for the server's URL, naming the connections `app`. */
  url(serverUrl: string, app: string): string {
    const url = new URL(serverUrl);
    url.host = `127.0.0.1:${this.#port}`;
    url.searchParams.set("application_name", app);
    return url.toString();
  }

  /** Arms a rule; it fires on the first matching statement of a connection of `app`, once. */
  arm(rule: FaultRule): ArmedRule {
    let resolve!: (connection: ProxiedConnection) => void;
    const fired = new Promise<ProxiedConnection>(done => {
      resolve = done;
    });
    this.#rules.push({ ...rule, resolve });
    return { fired };
  }

  /** Connections of `app` seen so far (ended ones included), oldest first. */
  connections(app: string): ProxiedConnection[] {
    return this.#connections.filter(connection => connection.app === app);
  }

  /** Resolves once `test` holds for the proxy's connections (re-checked on every protocol event). */
  async until(test: (proxy: PgFaultProxy) => boolean): Promise<void> {
    while (!test(this)) {
      await new Promise<void>(resolve => {
        const wake = () => {
          this.#changed.delete(wake);
          resolve();
        };
        this.#changed.add(wake);
      });
    }
  }

  /** Terminates a connection's backend now (pg_terminate_backend) and resolves once the client was told. */
  async terminate(connection: ProxiedConnection): Promise<void> {
    await this.#terminate(connection as Connection);
  }

  /**
   * The server becomes unreachable: new connections are refused (ECONNREFUSED) and the open ones are terminated.
   * Resolves once every client was told.
   */
  async refuse(): Promise<void> {
    this.#server.close();
    await Promise.all(
      this.#connections.filter(c => c.open && c.pid !== undefined).map(c => this.#terminate(c)),
    );
  }

  /** Accepts connections again (after refuse()), on the same port. */
  async accept(): Promise<void> {
    this.#server.listen(this.#port, "127.0.0.1");
    await once(this.#server, "listening");
  }

  async close(): Promise<void> {
    for (const connection of this.#connections) connection.destroy();
    if (this.#server.listening) this.#server.close();
    await this.#admin.end();
  }

  #notify(): void {
    for (const wake of [...this.#changed]) wake();
  }

  async #terminate(connection: Connection): Promise<void> {
    if (connection.pid === undefined) throw new Error(`connection ${connection.id} has no backend pid yet`);
    connection.dying();
    await this.#admin.query("SELECT pg_terminate_backend($1)", [connection.pid]);
    await connection.ended;
  }

  #accept(client: Socket): void {
    const server = tcpConnect(this.#target.port, this.#target.host);
    const connection = new Connection(this.#nextId++, client, server, {
      statement: (c, statement) => this.#onStatement(c, statement),
      changed: () => this.#notify(),
    });
    this.#connections.push(connection);
  }

  /** A client statement: the first armed rule of its app that matches takes it. */
  #onStatement(connection: Connection, statement: ClientStatement): void {
    const index = this.#rules.findIndex(rule => rule.app === connection.app && rule.match(statement));
    if (index < 0) return;
    const rule = this.#rules[index]!;
    this.#rules.splice(index, 1);
    if (rule.action === "terminate-before") {
      connection.holdClient();
      void this.#terminate(connection).then(() => rule.resolve(connection));
      return;
    }
    connection.afterAnswer(rule.onlyWithRows === true, fired => {
      if (!fired) {
        this.#rules.splice(index, 0, rule); // not this one (no rows): wait for the next match
        return "pass";
      }
      if (rule.action === "observe") {
        rule.resolve(connection);
        return "pass";
      }
      void this.#terminate(connection).then(() => rule.resolve(connection));
      return "drop";
    });
  }
}

interface ConnectionHooks {
  statement(connection: Connection, statement: ClientStatement): void;
  changed(): void;
}

/** One proxied connection: frames both directions into protocol messages and forwards them unless told not to. */
class Connection implements ProxiedConnection {
  app = "";
  pid: number | undefined;
  listening = false;
  open = true;
  readonly ended: Promise<void>;
  readonly #client: Socket;
  readonly #server: Socket;
  readonly #hooks: ConnectionHooks;
  #fromClient = Buffer.alloc(0);
  #fromServer = Buffer.alloc(0);
  #started = false;
  /** Client messages are no longer forwarded (the backend is being terminated before it sees them). */
  #clientHeld = false;
  /** Server messages up to the next ReadyForQuery are held, then passed or dropped by `#decide`. */
  #decide: ((hasRows: boolean) => "pass" | "drop") | undefined;
  #wantRows = false;
  #heldAnswer: Buffer[] = [];
  #answerHasRows = false;
  /** The answer was dropped: only the server's error (the FATAL) goes through from now on. */
  #dropAnswers = false;
  /**
   * The backend is being terminated: what it still sends (its FATAL) reaches the client together with the end of
   * the connection, in one write, as a client often reads them from a dying server.
   */
  #lastWords: Buffer[] | undefined;
  #pendingListen = false;

  constructor(
    readonly id: number,
    client: Socket,
    server: Socket,
    hooks: ConnectionHooks,
  ) {
    this.#client = client;
    this.#server = server;
    this.#hooks = hooks;
    let endClient!: () => void;
    let endServer!: () => void;
    const clientEnded = new Promise<void>(resolve => {
      endClient = resolve;
    });
    const serverEnded = new Promise<void>(resolve => {
      endServer = resolve;
    });
    this.ended = Promise.all([clientEnded, serverEnded]).then(() => {});
    client.on("data", chunk => this.#clientData(chunk));
    server.on("data", chunk => this.#serverData(chunk));
    client.on("error", () => server.destroy());
    server.on("error", () => client.destroy());
    client.on("close", () => {
      this.open = false;
      server.destroy();
      endClient();
      hooks.changed();
    });
    server.on("close", () => {
      this.open = false;
      // The server is gone (terminated backend): the client learns it from the FATAL and EOF.
      if (this.#lastWords) client.end(Buffer.concat(this.#lastWords));
      else client.end();
      endServer();
      hooks.changed();
    });
  }

  holdClient(): void {
    this.#clientHeld = true;
  }

  dying(): void {
    this.#lastWords ??= [];
  }

  /** Forwards a server message to the client, or keeps it for the end when the backend is dying. */
  #toClient(message: Buffer): void {
    if (this.#lastWords) this.#lastWords.push(message);
    else this.#client.write(message);
  }

  afterAnswer(wantRows: boolean, decide: (hasRows: boolean) => "pass" | "drop"): void {
    this.#wantRows = wantRows;
    this.#decide = hasRows => decide(!this.#wantRows || hasRows);
  }

  destroy(): void {
    this.#client.destroy();
    this.#server.destroy();
  }

  #clientData(chunk: Buffer): void {
    this.#fromClient = Buffer.concat([this.#fromClient, chunk]);
    while (true) {
      if (!this.#started) {
        if (this.#fromClient.length < 8) return;
        const length = this.#fromClient.readInt32BE(0);
        if (this.#fromClient.length < length) return;
        const message = this.#fromClient.subarray(0, length);
        this.#fromClient = this.#fromClient.subarray(length);
        const code = message.readInt32BE(4);
        if (code === 80877103 || code === 80877104) {
          this.#client.write("N"); // SSL / GSS encryption request: not offered
          continue;
        }
        this.#started = true;
        this.#readStartup(message);
        this.#server.write(message);
        continue;
      }
      if (this.#fromClient.length < 5) return;
      const length = this.#fromClient.readInt32BE(1) + 1;
      if (this.#fromClient.length < length) return;
      const message = this.#fromClient.subarray(0, length);
      this.#fromClient = this.#fromClient.subarray(length);
      const statement = readStatement(message);
      if (statement) {
        if (statement.type === "Q" && listenQuery(statement)) this.#pendingListen = true;
        // One rule per query: the rest of a query a rule took (Parse, then Bind) is not matched again.
        if (!this.#clientHeld && !this.#decide) this.#hooks.statement(this, statement);
      }
      if (!this.#clientHeld) this.#server.write(message);
    }
  }

  #serverData(chunk: Buffer): void {
    this.#fromServer = Buffer.concat([this.#fromServer, chunk]);
    while (this.#fromServer.length >= 5) {
      const length = this.#fromServer.readInt32BE(1) + 1;
      if (this.#fromServer.length < length) return;
      const message = this.#fromServer.subarray(0, length);
      this.#fromServer = this.#fromServer.subarray(length);
      const type = String.fromCharCode(message[0]!);
      if (type === "K") {
        this.pid = message.readInt32BE(5);
        this.#hooks.changed();
      }
      if (this.#dropAnswers) {
        if (type === "E") this.#toClient(message); // the FATAL that tells the client its connection is gone
        continue;
      }
      if (this.#decide) {
        this.#heldAnswer.push(message);
        if (type === "D") this.#answerHasRows = true;
        if (type !== "Z") continue;
        const decide = this.#decide;
        const hasRows = this.#answerHasRows;
        this.#decide = undefined;
        this.#answerHasRows = false;
        const held = this.#heldAnswer;
        this.#heldAnswer = [];
        if (decide(hasRows) === "drop") {
          this.#dropAnswers = true;
          continue;
        }
        for (const part of held) this.#toClient(part);
        this.#afterReady();
        continue;
      }
      this.#toClient(message);
      if (type === "Z") this.#afterReady();
    }
  }

  #afterReady(): void {
    if (this.#pendingListen) {
      this.#pendingListen = false;
      this.listening = true;
    }
    this.#hooks.changed();
  }

  #readStartup(message: Buffer): void {
    const fields = message.subarray(8).toString("utf8").split("\u0000");
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === "application_name") this.app = fields[i + 1]!;
    }
  }
}

/** Reads the statement a Parse, Bind or simple Query message carries (other messages: undefined). */
function readStatement(message: Buffer): ClientStatement | undefined {
  const type = String.fromCharCode(message[0]!);
  const body = message.subarray(5);
  const cString = (from: number): [string, number] => {
    const end = body.indexOf(0, from);
    return [body.subarray(from, end).toString("utf8"), end + 1];
  };
  if (type === "Q") return { type, statement: "", text: cString(0)[0], params: "" };
  if (type === "P") {
    const [statement, next] = cString(0);
    return { type, statement, text: cString(next)[0], params: "" };
  }
  if (type === "B") {
    const [, next] = cString(0); // portal
    const [statement, rest] = cString(next);
    return { type, statement, text: "", params: body.subarray(rest).toString("latin1") };
  }
  return undefined;
}
