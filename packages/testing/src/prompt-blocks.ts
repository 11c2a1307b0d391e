/**
 * A Messages request as the provider's prompt cache sees it: one ordered list of blocks, tools → system →
 * messages, each with its token estimate and its cache_control marker (if any).
 */

/** One block of a request, in cache order. */
export interface PromptBlock {
  /** Where the block is, written like the API's error paths: `tools.2`, `system.0`, `messages.3.content.1`. */
  location: string;
  section: "tools" | "system" | "messages";
  /** Role of the message the block belongs to (messages only). */
  role?: string;
  /** Whether the block opens its message (messages only): `[a][b]` and `[a, b]` are different prompts. */
  opensMessage?: boolean;
  /** The block as it is cached and counted: without cache_control; string content as one text block. */
  content: unknown;
  /** The block's `cache_control` (or a marker inside a tool_result's content), when it has one. */
  cacheControl?: unknown;
  /** How many cache_control fields the block holds (a tool_result's content parts may carry their own). */
  markers: number;
  /** Estimated tokens: see {@link estimateTokens}. */
  tokens: number;
}

/**
 * The deterministic token estimate the mock uses everywhere: ceil(characters of the JSON text / 4). Real
 * tokenizers differ (about 3.5–4 characters per token for English prose, fewer for code and JSON); what matters
 * for cache measurements is that the same content always counts the same.
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil((JSON.stringify(value) ?? "").length / 4);
}

/** Flattens a Messages request body into its blocks, in the order the prompt cache reads them. */
export function promptBlocks(body: any): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const tools: unknown[] = Array.isArray(body?.tools) ? body.tools : [];
  tools.forEach((tool, index) => {
    blocks.push(block(`tools.${index}`, "tools", tool));
  });
  const system = body?.system;
  if (typeof system === "string" && system !== "") {
    blocks.push(block("system", "system", { type: "text", text: system }));
  } else if (Array.isArray(system)) {
    system.forEach((entry, index) => {
      blocks.push(block(`system.${index}`, "system", entry));
    });
  }
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  messages.forEach((message, messageIndex) => {
    const role = String(message?.role);
    const content = message?.content;
    if (typeof content === "string") {
      blocks.push({
        ...block(`messages.${messageIndex}.content`, "messages", { type: "text", text: content }),
        role,
        opensMessage: true,
      });
      return;
    }
    (Array.isArray(content) ? content : []).forEach((entry, index) => {
      blocks.push({
        ...block(`messages.${messageIndex}.content.${index}`, "messages", entry),
        role,
        opensMessage: index === 0,
      });
    });
  });
  return blocks;
}

/** Where a request's cache breakpoints are (locations, in order). */
export function cacheBreakpoints(body: any): string[] {
  return promptBlocks(body)
    .filter(entry => entry.cacheControl !== undefined)
    .map(entry => entry.location);
}

function block(location: string, section: PromptBlock["section"], raw: unknown): PromptBlock {
  const { content, marker, markers } = withoutMarker(raw);
  const entry: PromptBlock = { location, section, content, markers, tokens: estimateTokens(content) };
  if (marker !== undefined) entry.cacheControl = marker;
  return entry;
}

type Stripped = { content: unknown; marker: unknown; markers: number };

/** The block without its cache_control; a tool_result's marked content counts as a marker on the result. */
function withoutMarker(raw: unknown): Stripped {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { content: raw, marker: undefined, markers: 0 };
  }
  const { cache_control: own, ...rest } = raw as Record<string, unknown>;
  const marker = own ?? undefined;
  let markers = marker === undefined ? 0 : 1;
  let inner: unknown;
  if (rest.type === "tool_result" && Array.isArray(rest.content)) {
    rest.content = rest.content.map(part => {
      const stripped = withoutMarker(part);
      inner ??= stripped.marker;
      markers += stripped.markers;
      return stripped.content;
    });
  }
  return { content: rest, marker: marker ?? inner, markers };
}

/**
 * The system prompt of a request body (or a ModelRequest) as one string, whether it was sent as a string or as
 * text blocks (as AgentLattice does with prompt caching on: its sections joined with a blank line). Undefined
 * when there is none.
 */
export function systemText(body: any): string | undefined {
  const system = body?.system;
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) return undefined;
  return system.map(block => (typeof block?.text === "string" ? block.text : "")).join("\n\n");
}
