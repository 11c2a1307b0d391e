import { InvalidOptionError } from "./errors.js";
import type { ToolUseBlock } from "./messages.js";
import type { JsonSchemaObject } from "./model-client.js";
import { canDeriveJsonSchema, type SchemaLike, toToolInputSchema } from "./schema.js";
import type { ToolDefinition } from "./tool.js";
import { errorOutcome, type ToolCallOutcome } from "./tool-execution.js";

/** The reserved name of the tool the SDK injects when `outputSchema` is set. */
export const SUBMIT_OUTPUT_TOOL_NAME = "submit_output";

/** A schema for the run's typed result: anything with `parse(input): T` (zod works directly). */
export type OutputSchema<T = unknown> = SchemaLike<T>;

/**
 * The injected submit_output tool. Its input schema is the host's schema, so the payload is validated like
 * any tool input (a failure goes back to the model as an error tool_result); a valid one ends the run.
 */
export function createSubmitOutputTool(schema: OutputSchema): ToolDefinition {
  return Object.freeze({
    kind: "submit_output",
    name: SUBMIT_OUTPUT_TOOL_NAME,
    description:
      "Submit your final answer as structured output. Call this exactly once, alone in its response, when the " +
      "task is complete; the input must match the schema. If it is rejected, fix the reported problems and call it again.",
    inputSchema: submitInputSchema(schema),
    schema,
    handler: (value: unknown) => ({ content: "Output submitted.", endTurn: true, structuredResult: value }),
  });
}

/**
 * The schema's own JSON Schema when it can describe itself. OutputSchema<T> is just { parse(input): T }, so a
 * bare parser is accepted too: the model then sees an open object schema and parse() still decides.
 */
function submitInputSchema(schema: OutputSchema): JsonSchemaObject {
  if (!canDeriveJsonSchema(schema)) return { type: "object" };
  return toToolInputSchema(schema, "AgentOptions.outputSchema");
}

export function assertNoReservedToolName(tools: readonly ToolDefinition[], where: string): void {
  if (
    tools.some(
      definition => definition.name === SUBMIT_OUTPUT_TOOL_NAME && definition.kind !== "submit_output",
    )
  ) {
    throw new InvalidOptionError(
      `${where}: the tool name "${SUBMIT_OUTPUT_TOOL_NAME}" is reserved while outputSchema is set (the SDK injects it). Rename your tool.`,
    );
  }
}

/** submit_output must be the only call of its batch; otherwise the whole batch is rejected and nothing runs. */
export function exclusiveBatchViolation(calls: readonly ToolUseBlock[]): ToolCallOutcome[] | undefined {
  const submissions = calls.filter(call => call.name === SUBMIT_OUTPUT_TOOL_NAME).length;
  if (submissions === 0 || calls.length === 1) return undefined;
  const problem =
    submissions > 1
      ? `${SUBMIT_OUTPUT_TOOL_NAME} was called ${submissions} times in one response; no call in this batch ran.`
      : `${SUBMIT_OUTPUT_TOOL_NAME} was called together with other tools; no call in this batch ran.`;
  const message = JSON.stringify({
    code: "submit_output_exclusive_batch",
    message: problem,
    suggestedNextStep: `Finish any other tool calls first, then call ${SUBMIT_OUTPUT_TOOL_NAME} once, alone in its own response.`,
  });
  return calls.map(call => {
    const outcome = errorOutcome(call, message);
    outcome.rejection = problem;
    return outcome;
  });
}

/** Default of AgentOptions.maxOutputAttempts: rejected submissions tolerated in one query before it stops. */
export const DEFAULT_MAX_OUTPUT_ATTEMPTS = 3;

/**
 * Why a batch's submit_output call was rejected (its input failed the schema, or it was not alone), or undefined
 * when the batch made no submission or it was accepted. One rejected response counts once, whatever it held.
 */
export function rejectedSubmission(
  calls: readonly ToolUseBlock[],
  outcomes: readonly ToolCallOutcome[],
): string | undefined {
  let rejection: string | undefined;
  for (let index = 0; index < calls.length; index++) {
    if (calls[index]!.name !== SUBMIT_OUTPUT_TOOL_NAME) continue;
    const outcome = outcomes[index];
    if (outcome?.rejection !== undefined) rejection = outcome.rejection;
  }
  return rejection;
}
