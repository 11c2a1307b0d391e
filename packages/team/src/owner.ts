import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

let owner: string | undefined;

/** This process as a claim owner: host, pid and a random suffix (pids are reused after restarts). */
export function processOwner(): string {
  owner ??= `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  return owner;
}
