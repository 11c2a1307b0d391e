import type { CacheControl, ContentBlock, ModelMessage, TextBlock } from "./messages.js";
import type { ModelToolSpec } from "./model-client.js";
import { CACHE_LOOKBACK_BLOCKS, MAX_CACHE_BREAKPOINTS } from "./prompt-caching.js";

/** What one request is made of, before breakpoints are placed. */
export interface CacheablePrompt {
  tools: readonly ModelToolSpec[];
  /**
   * The system prompt's sections, in the order they are sent: the part every session built from the same
   * options shares (the host's systemPrompt), the session's own part (workspace section, batching hint) and
   * the query's part (the skills section). Each becomes one text block.
   */
  system: { shared?: string | undefined; session?: string | undefined; query?: string | undefined };
  messages: readonly ModelMessage[];
}

export interface MarkedPrompt {
  tools: ModelToolSpec[];
  system: TextBlock[] | undefined;
  messages: ModelMessage[];
}

type BlockAt = { message: number; block: number };

/**
 * Places the cache breakpoints of one request on copies (the inputs, the stored history among them, are never
 * written to). In priority order, while fewer than four markers are in the request (markers the host put into
 * its own prompt content count too):
 *
 * 1. the last block of the newest message: the whole request so far becomes a cache entry the next request
 *    reads back (it moves with the conversation);
 * 2. when the newest turn added 20 blocks or more (a large tool batch), the block where the previous request's
 *    breakpoint was: the provider looks back only 20 blocks from a breakpoint, so without it the previous
 *    entry would not be found;
 * 3. the end of the part shared across sessions (the host's system prompt, else the last tool): another session
 *    built from the same options (a delegated child, a fresh agent per request) reads tools and prompt back;
 * 4. the end of the system prompt (workspace and skills sections included), when that is a later block: the
 *    stable prefix survives a compaction or a change further down.
 */
export function placeCacheBreakpoints(prompt: CacheablePrompt, marker: CacheControl): MarkedPrompt {
  const { shared, session, query } = prompt.system;
  const system: TextBlock[] = [];
  for (const text of [shared, session, query]) if (isNonEmpty(text)) system.push({ type: "text", text });
  const tools = prompt.tools.slice();
  const messages = prompt.messages.slice();

  // The candidates in priority order; each one placed takes one of the markers left.
  let left = MAX_CACHE_BREAKPOINTS - countHistoryMarkers(prompt.messages);
  const moving = lastMarkableBlock(messages, messages.length - 1);
  if (moving) {
    const previous = previousBreakpoint(messages);
    if (left-- > 0) markMessageBlock(messages, moving, marker);
    if (previous && blockDistance(messages, previous, moving) >= CACHE_LOOKBACK_BLOCKS && left-- > 0) {
      markMessageBlock(messages, previous, marker);
    }
  }
  const sharedSystem = isNonEmpty(shared);
  if (sharedSystem) {
    if (left-- > 0) markSystemBlock(system, 0, marker);
  } else if (tools.length > 0 && left-- > 0) markTool(tools, tools.length - 1, marker);
  if (system.length > (sharedSystem ? 1 : 0) && left-- > 0)
    markSystemBlock(system, system.length - 1, marker);
  return { tools, system: system.length > 0 ? system : undefined, messages };
}

/**
 * Markers already in stored messages (the host's own, in prompts or tool results), memoised per message: stored
 * messages are never changed in place (a change replaces the message), and a long loop would otherwise rescan
 * its whole history on every turn.
 */
const historyMarkers = new WeakMap<ModelMessage, number>();

function countHistoryMarkers(messages: readonly ModelMessage[]): number {
  let count = 0;
  for (const message of messages) {
    let markers = historyMarkers.get(message);
    if (markers === undefined) {
      markers = countMessageMarkers([message]);
      historyMarkers.set(message, markers);
    }
    count += markers;
  }
  return count;
}

/** The parts of a request or of an onModelRequest hook's input/result that can carry cache breakpoints. */
export type CacheControlCarrier = {
  system?: string | readonly TextBlock[] | undefined;
  tools?: readonly ModelToolSpec[] | undefined;
  messages?: readonly ModelMessage[] | undefined;
};

/**
 * A copy of `request` without any `cache_control` marker (in system, tools and messages); everything else is
 * shared. For a ModelClient whose provider does not take the field, or an onModelRequest hook that wants none.
 */
export function withoutCacheControl<T extends CacheControlCarrier>(request: T): T {
  const copy: CacheControlCarrier = { ...request };
  if (Array.isArray(request.system)) copy.system = request.system.map(stripBlock);
  if (request.tools) copy.tools = request.tools.map(stripBlock);
  if (request.messages) copy.messages = request.messages.map(stripMessage);
  return copy as T;
}

/** Whether any block of the request carries `cache_control`. */
export function hasCacheControl(request: CacheControlCarrier): boolean {
  if (Array.isArray(request.system) && request.system.some(hasMarker)) return true;
  if (request.tools?.some(hasMarker)) return true;
  return countMessageMarkers(request.messages ?? []) > 0;
}

function isNonEmpty(text: string | undefined): text is string {
  return typeof text === "string" && text !== "";
}

function hasMarker(block: object): boolean {
  return (block as { cache_control?: unknown }).cache_control != null;
}

function stripBlock<B extends object>(block: B): B {
  if (!hasMarker(block)) return block;
  const { cache_control: _marker, ...rest } = block as B & { cache_control?: unknown };
  return rest as B;
}

function stripMessage(message: ModelMessage): ModelMessage {
  if (typeof message.content === "string" || !message.content.some(hasMarker)) return message;
  return { ...message, content: (message.content as ContentBlock[]).map(stripBlock) } as ModelMessage;
}

function countMessageMarkers(messages: readonly ModelMessage[]): number {
  let count = 0;
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) if (hasMarker(block)) count += 1;
  }
  return count;
}

/** Thinking blocks cannot carry cache_control, nor can empty text blocks (the API rejects both). */
function isMarkable(block: ContentBlock): boolean {
  if (block.type === "thinking" || block.type === "redacted_thinking") return false;
  return block.type !== "text" || block.text !== "";
}

function lastMarkableBlock(messages: readonly ModelMessage[], index: number): BlockAt | undefined {
  const message = messages[index];
  if (!message) return undefined;
  if (typeof message.content === "string") {
    return message.content === "" ? undefined : { message: index, block: 0 };
  }
  for (let block = message.content.length - 1; block >= 0; block--) {
    if (isMarkable(message.content[block]!)) return { message: index, block };
  }
  return undefined;
}

/**
 * Where the previous request put its moving breakpoint: the newest user message that an assistant turn has
 * answered since (in a tool loop, the previous tool results; on a new query, the previous prompt or results).
 */
function previousBreakpoint(messages: readonly ModelMessage[]): BlockAt | undefined {
  let answered = false;
  for (let index = messages.length - 2; index >= 0; index--) {
    const role = messages[index]!.role;
    if (role === "assistant") answered = true;
    else if (answered) return lastMarkableBlock(messages, index);
  }
  return undefined;
}

function blockCount(message: ModelMessage): number {
  return typeof message.content === "string" ? 1 : message.content.length;
}

function blockDistance(messages: readonly ModelMessage[], from: BlockAt, to: BlockAt): number {
  let distance = to.block - from.block;
  for (let index = from.message; index < to.message; index++) distance += blockCount(messages[index]!);
  return distance;
}

function markMessageBlock(messages: ModelMessage[], at: BlockAt, marker: CacheControl): void {
  const message = messages[at.message]!;
  if (typeof message.content === "string") {
    const block: TextBlock = { type: "text", text: message.content, cache_control: { ...marker } };
    messages[at.message] = { ...message, content: [block] } as ModelMessage;
    return;
  }
  const content = [...message.content] as ContentBlock[];
  const block = content[at.block]!;
  // A marker the host put there itself stays as it is.
  if (hasMarker(block)) return;
  content[at.block] = { ...block, cache_control: { ...marker } } as ContentBlock;
  messages[at.message] = { ...message, content } as ModelMessage;
}

function markSystemBlock(system: TextBlock[], index: number, marker: CacheControl): void {
  system[index] = { ...system[index]!, cache_control: { ...marker } };
}

function markTool(tools: ModelToolSpec[], index: number, marker: CacheControl): void {
  tools[index] = { ...tools[index]!, cache_control: { ...marker } };
}
