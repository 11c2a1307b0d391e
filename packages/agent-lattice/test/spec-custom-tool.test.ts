// Spec sections "Custom Tool", "Business Context For Tools", "Permission Callback" and "Multi-turn Session".
import { createAgent, createBareAgent, tool } from "agent-lattice";
import { textTurn, toolTurn } from "agent-lattice/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { captureConsole, mockProvider, plainMessages, unmarked } from "./helpers.js";

describe("spec: Custom Tool (C10)", () => {
  it("the calculator tool is offered with its JSON Schema, runs, and its result reaches the model", async () => {
    const server = await mockProvider([
      toolTurn({ name: "calculator", input: { expr: "2+2" }, id: "toolu_calc" }),
      textTurn("2+2 is 4."),
    ]);
    const printed = captureConsole();

    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      tools: [
        tool(
          "calculator",
          "Evaluate a simple arithmetic expression",
          z.object({ expr: z.string() }),
          async input => ({ content: String(Function(`return ${input.expr}`)()) }),
        ),
      ],
    });

    const result = await agent.prompt("What is 2+2?");
    console.log(result.result);

    expect(printed).toEqual([["2+2 is 4."]]);
    const tools = server.requests[0]!.body.tools as Array<{ name: string }>;
    // createAgent() adds the private workspace's built-in tools; the custom tool comes after them.
    expect(tools.map(t => t.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "LS",
      "Glob",
      "Grep",
      "Bash",
      "calculator",
    ]);
    expect(unmarked(tools.at(-1))).toEqual({
      name: "calculator",
      description: "Evaluate a simple arithmetic expression",
      input_schema: { type: "object", properties: { expr: { type: "string" } }, required: ["expr"] },
    });
    expect(unmarked(server.requests[1]!.body.messages.at(-1))).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_calc", content: "4" }],
    });
  });
});

describe("spec: Business Context For Tools (C11)", () => {
  it("context reaches the handler; the model sees it only through the tool result", async () => {
    const server = await mockProvider([
      toolTurn({ name: "read_patient_record", input: {} }),
      textTurn("Reviewed."),
    ]);

    type QcContext = {
      patientRecordId: string;
      scoringStandardId: string;
    };

    const readPatientRecordInput = z.object({});
    const qcTool = tool<QcContext>();

    const readPatientRecord = qcTool(
      "read_patient_record",
      "Read the current patient record",
      readPatientRecordInput,
      async (_input, { context }) => {
        return {
          content: JSON.stringify({
            patientRecordId: context?.patientRecordId,
            scoringStandardId: context?.scoringStandardId,
          }),
        };
      },
    );

    const agent = createBareAgent<QcContext>({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      tools: [readPatientRecord],
    });

    const result = await agent.prompt("Review the current patient record.", {
      context: {
        patientRecordId: "ocr_123",
        scoringStandardId: "tumor-treatment-process-v1",
      },
    });

    expect(result.result).toBe("Reviewed.");
    // Not in the first request (no transcript leak) …
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain("ocr_123");
    // … only in the tool result the handler returned.
    expect(server.requests[1]!.body.messages.at(-1).content[0].content).toBe(
      JSON.stringify({ patientRecordId: "ocr_123", scoringStandardId: "tumor-treatment-process-v1" }),
    );
  });
});

describe("spec: Permission Callback (C20)", () => {
  it("a denied tool comes back to the model as an error tool_result", async () => {
    const server = await mockProvider([
      toolTurn({ name: "danger", input: {} }),
      textTurn("That was blocked by policy."),
    ]);
    let dangerousToolRan = false;
    const dangerousTool = tool("danger", "Delete everything", z.object({}), async () => {
      dangerousToolRan = true;
      return { content: "deleted" };
    });

    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
      tools: [dangerousTool],
      permission: async request => {
        if (request.toolName === "danger") {
          return { behavior: "deny", message: "Blocked by policy" };
        }
        return { behavior: "allow" };
      },
    });

    const result = await agent.prompt("Clean up.");
    expect(dangerousToolRan).toBe(false);
    expect(result.result).toBe("That was blocked by policy.");
    expect(server.requests[1]!.body.messages.at(-1).content[0]).toMatchObject({
      type: "tool_result",
      is_error: true,
      content: expect.stringContaining("Blocked by policy"),
    });
  });
});

describe("spec: Multi-turn Session (C24)", () => {
  it("the second prompt sees the first exchange", async () => {
    const server = await mockProvider([textTurn("Nice to meet you, Ada."), textTurn("Your name is Ada.")]);
    const printed = captureConsole();

    const agent = createAgent({
      apiKey: "test-key",
      baseURL: server.url,
      model: "deepseek-v4-flash",
    });

    await agent.prompt("My name is Ada.");
    const result = await agent.prompt("What is my name?");
    console.log(result.result);

    expect(printed).toEqual([["Your name is Ada."]]);
    expect(plainMessages(server.requests[1]!.body.messages)).toEqual([
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: [{ type: "text", text: "Nice to meet you, Ada." }] },
      { role: "user", content: "What is my name?" },
    ]);
  });
});
