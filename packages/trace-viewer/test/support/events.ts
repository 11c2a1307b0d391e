import type { TraceEvent } from "../../src/model/trace-event.js";

/** Hand-made trace events for model tests: one builder per run, seq counted for you, times 10 ms apart. */
export function runEvents(
  runId: string,
  source: string,
  options: { parent?: string; parentToolUseId?: string; startMs?: number; v?: number } = {},
) {
  const events: TraceEvent[] = [];
  let seq = 0;
  let now = options.startMs ?? Date.parse("2026-01-01T00:00:00.000Z");
  const at = (ms = 10) => {
    now += ms;
    return new Date(now).toISOString();
  };
  const emit = (type: string, data: unknown, advance = 10) => {
    const event: TraceEvent = {
      v: options.v ?? 1,
      session_id: `session-${source}`,
      run_id: runId,
      seq: seq++,
      source,
      time: at(advance),
      data,
      type,
    };
    if (options.parent) event.parent_run_id = options.parent;
    if (options.parentToolUseId) event.parent_tool_use_id = options.parentToolUseId;
    events.push(event);
    return event;
  };
  const usage = (input: number, output: number, write = 0, read = 0) => ({
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
  });
  return {
    events,
    emit,
    usage,
    now: () => new Date(now).toISOString(),
    start(prompt = "do it") {
      emit("run_start", { model: "m", tools: ["read"] });
      emit("user_message", { content: prompt, origin: "prompt" });
    },
    turn(turn: number, content: unknown[], tokens = usage(10, 5)) {
      const request = emit("model_request", { turn, model: "m", max_tokens: 100, tools: [], messages: [] });
      emit("assistant_message", {
        turn,
        message: { role: "assistant", content },
        stop_reason: content.some(block => (block as { type?: string }).type === "tool_use")
          ? "tool_use"
          : "end_turn",
        usage: tokens,
        started_at: request.time,
        duration_ms: 10,
      });
    },
    toolUse(turn: number, id: string, name: string, input: unknown = {}) {
      emit("tool_use", { id, name, input, turn });
    },
    toolResult(
      turn: number,
      id: string,
      name: string,
      content: unknown,
      extra: Record<string, unknown> = {},
    ) {
      const ended = at(0);
      emit("tool_result", {
        tool_use_id: id,
        name,
        kind: "tool",
        content,
        is_error: false,
        turn,
        started_at: new Date(Date.parse(ended) - 5).toISOString(),
        ended_at: ended,
        duration_ms: 5,
        ...extra,
      });
    },
    result(extra: Record<string, unknown> = {}) {
      emit("result", {
        subtype: "success",
        is_error: false,
        result: "done",
        usage: usage(0, 0),
        stop_reason: "end_turn",
        num_turns: 1,
        duration_ms: 100,
        ...extra,
      });
    },
  };
}
