import { APIError } from "./errors.js";
import type { AssistantContentBlock, AssistantModelMessage } from "./messages.js";
import type { ModelResponse, RawStreamEvent, StopReason } from "./model-client.js";
import type { ReportedUsage } from "./usage.js";

/**
 * A tool_use block whose streamed input JSON could not be parsed (a provider bug or a torn value). The
 * loop answers it with an error tool_result instead of running the tool on a guess.
 */
export const MALFORMED_INPUT = Symbol.for("agent-lattice.malformedToolInput");

type BlockUnderConstruction = {
  block: AssistantContentBlock;
  /** Accumulated input_json_delta text for tool_use blocks. */
  json?: string;
};

/**
 * Folds raw Messages stream events into one ModelResponse, the way the provider's non-streaming endpoint
 * would have returned it. One instance per model response.
 */
export class StreamAssembler {
  private readonly blocks: BlockUnderConstruction[] = [];
  private id: string | undefined;
  private model: string | undefined;
  private stopReason: StopReason | null = null;
  private usage: ReportedUsage = {};
  private stopped = false;

  push(event: RawStreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.id = event.message.id;
        this.model = event.message.model;
        this.mergeUsage(event.message.usage);
        return;
      case "content_block_start":
        this.blocks[event.index] = startBlock(event.content_block as AssistantContentBlock);
        return;
      case "content_block_delta":
        this.applyDelta(event.index, event.delta);
        return;
      case "content_block_stop":
        this.finishBlock(event.index);
        return;
      case "message_delta":
        this.stopReason = event.delta.stop_reason;
        this.mergeUsage(event.usage);
        return;
      case "message_stop":
        this.stopped = true;
        return;
      case "error":
        throw new APIError(`The provider sent an error event mid-stream: ${event.error.message}`, {
          type: event.error.type,
        });
      default:
        return; // ping and event types added by later API versions carry nothing to assemble
    }
  }

  finish(): ModelResponse {
    if (!this.stopped && this.stopReason === null) {
      throw new APIError(
        "The model stream ended before message_stop (torn stream); the turn was discarded.",
        {
          type: "connection_error",
        },
      );
    }
    const content: AssistantContentBlock[] = [];
    for (const entry of this.blocks) if (entry) content.push(entry.block);
    const message: AssistantModelMessage = { role: "assistant", content };
    if (this.id !== undefined) message.providerResponseId = this.id;
    if (this.model !== undefined) message.model = this.model;
    return { message, stopReason: this.stopReason, usage: this.usage };
  }

  private applyDelta(
    index: number,
    delta: Extract<RawStreamEvent, { type: "content_block_delta" }>["delta"],
  ) {
    const entry = this.blocks[index];
    if (!entry) return;
    const block = entry.block as Record<string, unknown>;
    switch (delta.type) {
      case "text_delta":
        block.text = (block.text as string) + delta.text;
        return;
      case "input_json_delta":
        entry.json = (entry.json ?? "") + delta.partial_json;
        return;
      case "thinking_delta":
        block.thinking = (block.thinking as string) + delta.thinking;
        return;
      case "signature_delta":
        block.signature = ((block.signature as string | undefined) ?? "") + delta.signature;
        return;
      case "citations_delta":
        block.citations = [...((block.citations as unknown[] | null | undefined) ?? []), delta.citation];
        return;
    }
  }

  private finishBlock(index: number) {
    const entry = this.blocks[index];
    if (entry?.block.type !== "tool_use" || entry.json === undefined) return;
    entry.block.input = parseToolInput(entry.json);
  }

  private mergeUsage(reported: ReportedUsage | undefined) {
    if (!reported) return;
    // message_delta usage is cumulative and may repeat message_start fields; a later non-null value wins.
    for (const key of Object.keys(reported) as (keyof ReportedUsage)[]) {
      const value = reported[key];
      if (typeof value === "number") this.usage[key] = value;
    }
  }
}

function startBlock(block: AssistantContentBlock): BlockUnderConstruction {
  // Copy: the event object is also handed to the host as a stream_event and must not change under it.
  return { block: { ...block } as AssistantContentBlock };
}

function parseToolInput(json: string): unknown {
  if (json.trim() === "") return {};
  try {
    return JSON.parse(json);
  } catch {
    return { [MALFORMED_INPUT]: json };
  }
}

export function malformedInputOf(input: unknown): string | undefined {
  if (input !== null && typeof input === "object" && MALFORMED_INPUT in input) {
    return (input as Record<symbol, string>)[MALFORMED_INPUT];
  }
  return undefined;
}
