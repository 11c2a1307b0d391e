import type { DocumentBlock, ImageBlock, TextBlock, ToolResult } from "@agent-lattice/core";

type ResultBlock = TextBlock | ImageBlock | DocumentBlock;

/** Image types the Messages API accepts in a tool_result; other images become a note. */
const MODEL_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** Who produced a result, for the notes and errors the model reads. */
export interface ResultOrigin {
  server: string;
  tool: string;
}

/**
 * Maps an MCP `CallToolResult` to a tool result the model reads:
 * - text → text; several text blocks (and nothing else) → one string, joined by newlines;
 * - image (JPEG, PNG, GIF, WebP) → image block; other image types → a note naming the type;
 * - embedded resource: text → a text block headed by its URI; blob image → image block; PDF → document block;
 *   text/* blob → decoded text; other blobs → a note;
 * - resource_link → a text line with its name, URI, type and description (the model cannot open it);
 * - audio → a note (tool results carry no audio);
 * - no content but `structuredContent` → its JSON; nothing at all → "(no content)";
 * - `isError: true` → an is_error result.
 * A result that is not an MCP CallToolResult becomes an is_error result saying so.
 */
export function toToolResult(result: unknown, origin: ResultOrigin): ToolResult {
  const record = result as { content?: unknown; isError?: unknown; structuredContent?: unknown } | null;
  if (
    record === null ||
    typeof record !== "object" ||
    (record.content !== undefined && !Array.isArray(record.content))
  ) {
    return malformed(origin, "expected an object with a content array");
  }
  const blocks: ResultBlock[] = [];
  for (const item of (record.content as unknown[] | undefined) ?? []) {
    const mapped = toBlock(item);
    if (typeof mapped === "string") return malformed(origin, mapped);
    blocks.push(mapped);
  }
  if (blocks.length === 0 && record.structuredContent !== undefined) {
    blocks.push({ type: "text", text: JSON.stringify(record.structuredContent) });
  }
  const isError = record.isError === true;
  const content: ToolResult["content"] =
    blocks.length === 0
      ? "(no content)"
      : blocks.every(block => block.type === "text")
        ? blocks.map(block => (block as TextBlock).text).join("\n")
        : blocks;
  return isError ? { content, isError: true } : { content };
}

/** One MCP content block → one block for the model, or a string saying what is wrong with it. */
function toBlock(item: unknown): ResultBlock | string {
  if (item === null || typeof item !== "object")
    return `a content entry is ${describe(item)}, not a content block`;
  const block = item as Record<string, unknown>;
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? { type: "text", text: block.text } : missing("text", "text");
    case "image":
      if (typeof block.data !== "string" || typeof block.mimeType !== "string")
        return missing("image", "data and mimeType");
      return MODEL_IMAGE_TYPES.has(block.mimeType)
        ? { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } }
        : note(
            `an image of type ${block.mimeType} (${bytesOf(block.data)} bytes) was left out: the model accepts JPEG, PNG, GIF and WebP`,
          );
    case "audio":
      if (typeof block.data !== "string") return missing("audio", "data");
      return note(
        `audio (${String(block.mimeType ?? "unknown type")}, ${bytesOf(block.data)} bytes) was left out: tool results cannot carry audio`,
      );
    case "resource":
      return resourceBlock(block.resource);
    case "resource_link": {
      if (typeof block.uri !== "string") return missing("resource_link", "uri");
      const name = typeof block.name === "string" ? block.name : block.uri;
      const type = typeof block.mimeType === "string" ? ` (${block.mimeType})` : "";
      const about = typeof block.description === "string" ? `: ${block.description}` : "";
      return { type: "text", text: `Resource link: ${name} <${block.uri}>${type}${about}` };
    }
    default:
      return `a content block has the unknown type ${JSON.stringify(block.type)}`;
  }
}

function resourceBlock(resource: unknown): ResultBlock | string {
  if (resource === null || typeof resource !== "object") return missing("resource", "resource");
  const { uri, mimeType, text, blob } = resource as Record<string, unknown>;
  if (typeof uri !== "string") return missing("resource", "resource.uri");
  const type = typeof mimeType === "string" ? mimeType : undefined;
  const heading = `Resource ${uri}${type ? ` (${type})` : ""}:`;
  if (typeof text === "string") return { type: "text", text: `${heading}\n${text}` };
  if (typeof blob !== "string") return missing("resource", "resource.text or resource.blob");
  if (type && MODEL_IMAGE_TYPES.has(type)) {
    return { type: "image", source: { type: "base64", media_type: type, data: blob } };
  }
  if (type === "application/pdf") {
    return { type: "document", source: { type: "base64", media_type: type, data: blob }, title: uri };
  }
  if (type?.startsWith("text/"))
    return { type: "text", text: `${heading}\n${Buffer.from(blob, "base64").toString("utf8")}` };
  return note(`the binary resource ${uri} (${type ?? "unknown type"}, ${bytesOf(blob)} bytes) was left out`);
}

function note(text: string): TextBlock {
  return { type: "text", text: `[${text}]` };
}

function missing(type: string, what: string): string {
  return `a "${type}" content block lacks ${what}`;
}

function malformed(origin: ResultOrigin, problem: string): ToolResult {
  return {
    content: `MCP server "${origin.server}" returned a malformed result for tool "${origin.tool}": ${problem}. This is a bug in the server; the call may or may not have taken effect.`,
    isError: true,
  };
}

/** Decoded size of base64 text. */
function bytesOf(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function describe(value: unknown): string {
  return value === null ? "null" : typeof value;
}
