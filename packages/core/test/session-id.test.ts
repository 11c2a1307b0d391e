// AgentOptions.sessionId: naming a session so a new process can resume it (history and workspace), C25.
import { createScriptedModelClient, textTurn } from "@agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { createAgentFactory, createBareAgent, InvalidOptionError } from "../src/index.js";

const { createAgent, defineAgent } = createAgentFactory();

const client = () => createScriptedModelClient({ script: [textTurn("ok")] });

describe("AgentOptions.sessionId", () => {
  it("is the agent's session id, reported in every SDK message, and handed to the workspace provider", async () => {
    const seen: string[] = [];
    const provider = {
      createSession(input: { sessionId: string }) {
        seen.push(input.sessionId);
        return { tools: [] };
      },
    };
    const agent = createAgent({ model: "m", modelClient: client(), sessionId: "ada", workspace: provider });
    expect(agent.sessionId).toBe("ada");
    expect(seen).toEqual(["ada"]);
    const result = await agent.prompt("hi");
    expect(result.session_id).toBe("ada");
  });

  it("defaults to a fresh UUID per agent", () => {
    const one = createBareAgent({ model: "m", modelClient: client() });
    const two = createBareAgent({ model: "m", modelClient: client() });
    expect(one.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(one.sessionId).not.toBe(two.sessionId);
  });

  it("must be a non-empty printable string of at most 200 characters", () => {
    for (const bad of ["", "  ", "a\nb", "x".repeat(201), 42]) {
      expect(() => createBareAgent({ model: "m", modelClient: client(), sessionId: bad as string })).toThrow(
        InvalidOptionError,
      );
    }
    expect(() => createBareAgent({ model: "m", modelClient: client(), sessionId: "" })).toThrow(
      /AgentOptions\.sessionId must be a non-empty string of at most 200 printable characters/,
    );
  });

  it("is refused by defineAgent(): every spawn would share it", () => {
    expect(() => defineAgent({ model: "m", modelClient: client(), sessionId: "ada" })).toThrow(
      /defineAgent\(\): sessionId is not allowed on a template, because every spawn\(\) is a new session/,
    );
  });
});
