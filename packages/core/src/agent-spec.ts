import type { Agent, AgentLike } from "./agent.js";
import type { AgentOptions } from "./agent-options.js";
import { BRANDS, brand, brandOf } from "./brand.js";
import type { OutputSchema } from "./structured-output.js";

/**
 * A template for agent sessions: the options of createAgent() and no state. Every spawn() is an independent
 * session (own history, own workspace). Passing a spec to agentTool()/delegateTool() spawns one per call.
 */
export interface AgentSpec<TContext = unknown, TOutput = unknown> {
  readonly kind: "agent_spec";
  readonly name: string | undefined;
  readonly options: Readonly<AgentOptions<TContext, TOutput>>;
  spawn(): Agent<TContext, TOutput>;
}

/** What a delegation tool can target: a template (fresh session per call) or a live session (keeps memory). */
export type DelegationTarget<TContext = unknown> = AgentSpec<TContext> | AgentLike<TContext, any>;

export function isAgentSpec(target: unknown): target is AgentSpec {
  return (
    !!target &&
    typeof target === "object" &&
    (target as AgentSpec).kind === "agent_spec" &&
    typeof (target as AgentSpec).spawn === "function"
  );
}

/** Records the outputSchema an SDK-made agent declares, so delegation can inherit and cross-check it. */
export function declareOutputSchema(agent: object, schema: OutputSchema): void {
  brand(agent, BRANDS.outputSchema, schema);
}

/** The declared outputSchema of a spec or SDK-made agent; undefined for host-defined AgentLike adapters. */
export function declaredOutputSchemaOf(target: DelegationTarget<any>): OutputSchema | undefined {
  if (isAgentSpec(target)) return target.options.outputSchema;
  return brandOf(target, BRANDS.outputSchema) as OutputSchema | undefined;
}
