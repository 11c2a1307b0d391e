// A large, realistic trace for the scale test and the bench: runs of several agents with 4–12 turns, 1–3 tool
// calls per turn (some failing), delegations that start child runs, an occasional provider error, and model
// requests that carry the whole growing history — as real traces do, so the file is the size real ones reach.
// Deterministic (seeded), so every run of the bench measures the same file.

/** mulberry32: small, fast, seeded. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  "the agent reads files runs tests finds a bug in the parser then fixes the rounding of totals and checks the cache before it writes a summary of what changed and why".split(
    " ",
  );

/** Exactly `events` trace events (the last run may be cut off mid-way, like a run still going). */
export function syntheticTrace({ events: target = 10_000, seed = 1 } = {}) {
  const next = random(seed);
  const pick = list => list[Math.floor(next() * list.length)];
  const int = (low, high) => low + Math.floor(next() * (high - low + 1));
  const words = count => Array.from({ length: count }, () => pick(WORDS)).join(" ");
  let clock = Date.parse("2026-03-01T09:00:00.000Z");
  const iso = () => new Date(clock).toISOString();
  const out = [];
  let runCounter = 0;
  let callCounter = 0;

  function runOf(source, depth, parent) {
    const runId = `run-${++runCounter}`;
    let seq = 0;
    const emit = (type, data) => {
      const event = {
        v: 1,
        session_id: `session-${source}`,
        run_id: runId,
        seq: seq++,
        source,
        time: iso(),
        type,
        data,
      };
      if (parent) Object.assign(event, { parent_run_id: parent.runId, parent_tool_use_id: parent.callId });
      out.push(event);
    };
    const usage = () => ({
      input_tokens: int(200, 4000),
      output_tokens: int(20, 600),
      cache_creation_input_tokens: next() < 0.2 ? int(500, 3000) : 0,
      cache_read_input_tokens: next() < 0.6 ? int(500, 6000) : 0,
    });
    const tools = ["read_file", "grep", "run_tests", "edit_file", depth < 2 ? "helper" : "glob"];
    const history = [{ role: "user", content: `${words(20)}?` }];
    const runStarted = clock;
    emit("run_start", { model: "claude-sonnet-4-6", tools });
    emit("user_message", { content: history[0].content, origin: "prompt" });
    const turns = depth ? int(2, 4) : int(4, 12);
    const total = {
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    for (let turn = 1; turn <= turns && out.length < target; turn++) {
      const started = iso();
      emit("model_request", {
        turn,
        model: "claude-sonnet-4-6",
        max_tokens: 8192,
        system: "You are a careful engineer.",
        tools,
        messages: [...history],
      });
      clock += int(300, 2500);
      if (next() < 0.01) {
        emit("error", {
          error: { name: "APIError", message: "Overloaded", code: "overloaded_error", status: 529 },
          during: "model_request",
          turn,
        });
        break;
      }
      const last = turn === turns;
      const calls = last
        ? []
        : Array.from({ length: int(1, 3) }, () => ({ id: `toolu_${++callCounter}`, name: pick(tools) }));
      const content = [{ type: "text", text: words(int(10, 60)) }];
      for (const call of calls)
        content.push({
          type: "tool_use",
          id: call.id,
          name: call.name,
          input: { path: `src/${pick(WORDS)}.ts`, query: words(4) },
        });
      const turnUsage = usage();
      for (const key of Object.keys(total)) total[key] += turnUsage[key];
      emit("assistant_message", {
        turn,
        message: { role: "assistant", content },
        stop_reason: calls.length ? "tool_use" : "end_turn",
        usage: turnUsage,
        started_at: started,
        duration_ms: clock - Date.parse(started),
      });
      history.push({ role: "assistant", content });
      for (const block of content.slice(1))
        emit("tool_use", { id: block.id, name: block.name, input: block.input, turn });
      const results = [];
      for (const call of calls) {
        const callStart = clock;
        const delegated = call.name === "helper";
        if (delegated && out.length < target) runOf("helper", depth + 1, { runId, callId: call.id });
        clock += int(5, 400);
        const isError = !delegated && next() < 0.05;
        const resultText = isError ? `Error: ENOENT ${words(6)}` : words(int(30, 90));
        emit("tool_result", {
          tool_use_id: call.id,
          name: call.name,
          kind: delegated ? "agent_tool" : "tool",
          content: resultText,
          is_error: isError,
          turn,
          started_at: new Date(callStart).toISOString(),
          ended_at: iso(),
          duration_ms: clock - callStart,
        });
        results.push({ type: "tool_result", tool_use_id: call.id, content: resultText, is_error: isError });
      }
      if (results.length) history.push({ role: "user", content: results });
    }
    emit("result", {
      subtype: "success",
      is_error: false,
      result: words(30),
      usage: total,
      stop_reason: "end_turn",
      num_turns: turns,
      duration_ms: clock - runStarted,
    });
  }

  const agents = ["lead", "planner", "reviewer"];
  while (out.length < target) {
    runOf(pick(agents), 0, undefined);
    clock += int(100, 2000);
  }
  return out.slice(0, target);
}

/** JSONL text of events, as createJsonlContextTracer writes it. */
export function toJsonl(events) {
  return events.map(event => `${JSON.stringify(event)}\n`).join("");
}
