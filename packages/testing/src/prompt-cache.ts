/**
 * A simulation of Anthropic's prompt cache, faithful enough to measure what breakpoints save: cache entries keyed
 * by the exact content of the prompt up to a breakpoint (tools → system → messages), a look-back window of 20
 * blocks per breakpoint, a minimum cacheable length per model, 5-minute / 1-hour lifetimes refreshed on every
 * hit, and the three usage counts. See the package README for what it does not model and where the figures
 * come from.
 */
import { createRequire } from "node:module";
import { type PromptBlock, promptBlocks } from "./prompt-blocks.js";

/** How the simulated cache behaves. Every figure defaults to Anthropic's documented value. */
export interface PromptCacheOptions {
  /** Shortest prefix (estimated tokens) that is cached; default by model, see {@link defaultMinCacheableTokens}. */
  minCacheableTokens?: number | ((model: string) => number);
  /** Blocks checked backwards from each breakpoint, the breakpoint's own included (default 20). */
  lookbackBlocks?: number;
  /** Breakpoints a request may carry; more is a 400 (default 4). */
  maxBreakpoints?: number;
  /** The clock for lifetimes, in ms (default Date.now); inject one to test expiry without waiting. */
  now?: () => number;
}

/** Usage as the API reports it for a request with prompt caching. */
export interface PromptCacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** One breakpoint of a request, as the simulation saw it. */
export interface PromptCacheBreakpoint {
  /** Location of the marked block, e.g. `system.0` or `messages.4.content.2`. */
  location: string;
  /** 0-based index of the block in tools → system → messages order. */
  position: number;
  /** Estimated tokens of the prompt up to and including the block. */
  prefixTokens: number;
  ttl: "5m" | "1h";
}

/** What the cache did with one request. */
export interface PromptCacheOutcome {
  model: string;
  /** Blocks in the request (tools, system blocks, message content blocks). */
  blocks: number;
  /** Estimated tokens of the whole prompt (= input + cache reads + cache writes). */
  totalTokens: number;
  minCacheableTokens: number;
  breakpoints: PromptCacheBreakpoint[];
  /** The longest cached prefix found (read from the cache), if any. */
  hit?: { location: string; position: number; tokens: number };
  /** Locations of the breakpoints whose prefix this request writes to the cache. */
  written: string[];
  usage: PromptCacheUsage;
}

/** A request the real API would refuse (400 invalid_request_error) because of its cache_control markers. */
export class PromptCacheRequestError extends Error {
  override name = "PromptCacheRequestError";
}

/** A planned request: what it reads and writes, applied by {@link PromptCacheSimulator.commit}. */
export interface PromptCachePlan {
  outcome: PromptCacheOutcome;
  /** Cache keys: the hit's (refreshed on commit) and each written prefix's, with its lifetime. */
  readonly hitKey: string | undefined;
  readonly writes: ReadonlyArray<{ key: string; ttlMs: number }>;
}

const TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;

/**
 * Minimum cacheable prompt length by model, from Anthropic's prompt-caching docs ("Cache limitations"):
 * 4096 for Claude Opus 4.5–4.7 and Haiku 4.5, 2048 for Sonnet 4.6 and Haiku 3.5 / 3, 1024 for Sonnet 4.5,
 * Opus 4.1, Opus 4, Sonnet 4 and Sonnet 3.7. Any other model name (a mock name, another provider's) gets 1024.
 */
export function defaultMinCacheableTokens(model: string): number {
  const name = model.toLowerCase();
  if (/opus-4[-.][5-7]\b|haiku-4[-.]5\b|mythos/.test(name)) return 4096;
  if (/sonnet-4[-.]6\b|3[-.]5-haiku|3-haiku|haiku-3\b|haiku-3[-.]5\b/.test(name)) return 2048;
  return 1024;
}

type Entry = { expiresAt: number; ttlMs: number };

/** The provider-side prompt cache of one organization (one mock server or scripted client). */
export class PromptCacheSimulator {
  readonly #entries = new Map<string, Entry>();
  readonly #minTokens: (model: string) => number;
  readonly #lookback: number;
  readonly #maxBreakpoints: number;
  readonly #now: () => number;

  constructor(options: PromptCacheOptions = {}) {
    const min = options.minCacheableTokens;
    this.#minTokens =
      typeof min === "function" ? min : min === undefined ? defaultMinCacheableTokens : () => min;
    this.#lookback = options.lookbackBlocks ?? 20;
    this.#maxBreakpoints = options.maxBreakpoints ?? 4;
    this.#now = options.now ?? Date.now;
  }

  /** Live (unexpired) cache entries. */
  get size(): number {
    this.#purge();
    return this.#entries.size;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
  }

  /**
   * Works out what a request reads and writes, without changing the cache. Throws PromptCacheRequestError for
   * markers the API refuses (more than the maximum, on thinking or empty text blocks, an unknown type or ttl,
   * a 1h breakpoint after a 5m one).
   */
  plan(body: any): PromptCachePlan {
    this.#purge();
    const model = typeof body?.model === "string" ? body.model : "";
    const blocks = promptBlocks(body);
    const breakpoints = this.#breakpoints(blocks);
    const keys = prefixKeys(model, body, blocks);
    const prefixTokens: number[] = [];
    let total = 0;
    for (const entry of blocks) {
      total += entry.tokens;
      prefixTokens.push(total);
    }
    const minCacheableTokens = this.#minTokens(model);

    // Each breakpoint looks back over its own block and the ones before it for an existing entry.
    let hit = -1;
    for (const breakpoint of breakpoints) {
      const stop = Math.max(0, breakpoint.position - this.#lookback + 1);
      for (let position = breakpoint.position; position >= stop; position--) {
        if (this.#entries.has(keys[position]!)) {
          hit = Math.max(hit, position);
          break;
        }
      }
    }
    const read = hit >= 0 ? prefixTokens[hit]! : 0;
    const writes = breakpoints.filter(
      breakpoint => breakpoint.position > hit && breakpoint.prefixTokens >= minCacheableTokens,
    );
    // Billing as the docs describe it for mixed lifetimes: 1h writes up to the last 1h breakpoint, 5m after.
    const lastWrite = writes.at(-1)?.prefixTokens ?? read;
    const lastHourWrite = writes.filter(breakpoint => breakpoint.ttl === "1h").at(-1)?.prefixTokens ?? read;
    const hourTokens = Math.max(0, lastHourWrite - read);
    const fiveMinuteTokens = Math.max(0, lastWrite - Math.max(read, lastHourWrite));

    const outcome: PromptCacheOutcome = {
      model,
      blocks: blocks.length,
      totalTokens: total,
      minCacheableTokens,
      breakpoints,
      written: writes.map(breakpoint => breakpoint.location),
      usage: {
        input_tokens: total - read - hourTokens - fiveMinuteTokens,
        cache_creation_input_tokens: hourTokens + fiveMinuteTokens,
        cache_read_input_tokens: read,
        cache_creation: {
          ephemeral_5m_input_tokens: fiveMinuteTokens,
          ephemeral_1h_input_tokens: hourTokens,
        },
      },
    };
    if (hit >= 0) outcome.hit = { location: blocks[hit]!.location, position: hit, tokens: read };
    return {
      outcome,
      hitKey: hit >= 0 ? keys[hit] : undefined,
      writes: writes.map(breakpoint => ({ key: keys[breakpoint.position]!, ttlMs: TTL_MS[breakpoint.ttl] })),
    };
  }

  /**
   * Applies a plan once the response begins (the API makes an entry available only then): refreshes the entry
   * that was read and stores the written prefixes.
   */
  commit(plan: PromptCachePlan): void {
    const now = this.#now();
    if (plan.hitKey !== undefined) {
      const entry = this.#entries.get(plan.hitKey);
      if (entry) entry.expiresAt = now + entry.ttlMs;
    }
    for (const write of plan.writes) {
      const existing = this.#entries.get(write.key);
      const ttlMs = Math.max(write.ttlMs, existing?.ttlMs ?? 0);
      this.#entries.set(write.key, { expiresAt: now + ttlMs, ttlMs });
    }
  }

  /** plan() and commit() in one step. */
  process(body: any): PromptCacheOutcome {
    const plan = this.plan(body);
    this.commit(plan);
    return plan.outcome;
  }

  #purge(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }

  #breakpoints(blocks: PromptBlock[]): PromptCacheBreakpoint[] {
    const breakpoints: PromptCacheBreakpoint[] = [];
    let markers = 0;
    let prefixTokens = 0;
    let sawFiveMinutes = false;
    blocks.forEach((entry, position) => {
      prefixTokens += entry.tokens;
      markers += entry.markers;
      if (entry.cacheControl === undefined) return;
      const ttl = checkMarker(entry);
      if (ttl === "1h" && sawFiveMinutes) {
        throw new PromptCacheRequestError(
          `${entry.location}.cache_control: a breakpoint with ttl "1h" must not come after one with ttl "5m" ` +
            "(longer lifetimes first).",
        );
      }
      sawFiveMinutes ||= ttl === "5m";
      breakpoints.push({ location: entry.location, position, prefixTokens, ttl });
    });
    if (markers > this.#maxBreakpoints) {
      throw new PromptCacheRequestError(
        `A maximum of ${this.#maxBreakpoints} blocks with cache_control may be provided. Found ${markers}.`,
      );
    }
    return breakpoints;
  }
}

/** Validates one marker as the API does; returns its lifetime. */
function checkMarker(entry: PromptBlock): "5m" | "1h" {
  const marker = entry.cacheControl as { type?: unknown; ttl?: unknown };
  const type = (entry.content as { type?: unknown } | null)?.type;
  if (type === "thinking" || type === "redacted_thinking") {
    throw new PromptCacheRequestError(`${entry.location}.cache_control: Extra inputs are not permitted`);
  }
  if (type === "text" && (entry.content as { text?: unknown }).text === "") {
    throw new PromptCacheRequestError(
      `${entry.location}.text: cache_control cannot be set for empty text blocks`,
    );
  }
  if (marker === null || typeof marker !== "object" || marker.type !== "ephemeral") {
    throw new PromptCacheRequestError(`${entry.location}.cache_control.type: Input should be 'ephemeral'`);
  }
  if (marker.ttl === undefined) return "5m";
  if (marker.ttl !== "5m" && marker.ttl !== "1h") {
    throw new PromptCacheRequestError(`${entry.location}.cache_control.ttl: Input should be '5m' or '1h'`);
  }
  return marker.ttl;
}

/**
 * The cache key of the prompt up to each block: a hash chain over the model and every block before it, so equal
 * keys mean byte-identical prefixes. Settings that change the messages cache (thinking, tool_choice) enter the
 * chain where the messages start.
 */
function prefixKeys(model: string, body: any, blocks: PromptBlock[]): string[] {
  const keys: string[] = [];
  let key = digest(`model:${model}`);
  let messagesStarted = false;
  for (const entry of blocks) {
    if (entry.section === "messages" && !messagesStarted) {
      messagesStarted = true;
      key = digest(`${key}params:${JSON.stringify([body?.thinking ?? null, body?.tool_choice ?? null])}`);
    }
    const unit =
      entry.section === "messages"
        ? JSON.stringify([entry.role, entry.opensMessage, entry.content])
        : JSON.stringify([entry.section, entry.content]);
    key = digest(key + unit);
    keys.push(key);
  }
  return keys;
}

type CreateHash = typeof import("node:crypto").createHash;
let createHash: CreateHash | undefined;

/**
 * node:crypto is loaded on the first simulated request: the agent-lattice umbrella re-exports this package, and
 * importing it must not pay for a module only the simulation needs.
 */
function digest(text: string): string {
  createHash ??= (createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto")).createHash;
  return createHash("sha256").update(text).digest("base64");
}
