/** What a `permission` callback is asked before a tool runs (after its input passed the schema). */
export interface PermissionRequest<TContext = unknown> {
  toolName: string;
  input: unknown;
  toolUseId: string;
  context: TContext | undefined;
  signal: AbortSignal;
  /**
   * The tool marked this call as needing a person's approval (ToolOptions.needsApproval). It then waits for a
   * person whatever the callback answers, unless the callback denies it.
   */
  needsApproval: boolean;
}

export type PermissionDecision =
  /** `updatedInput` replaces the model's input (it is validated against the tool's schema again). */
  | { behavior: "allow"; updatedInput?: unknown }
  /** The model receives `message` in an error tool_result and can explain or choose another path. */
  | { behavior: "deny"; message?: string }
  /**
   * Ask a person: the call (and the rest of its batch) waits, the query ends "awaiting_approval", and
   * agent.resume() continues once someone decided. `message` says why, to whoever decides.
   */
  | { behavior: "ask"; message?: string };

export type PermissionCallback<TContext = unknown> = (
  request: PermissionRequest<TContext>,
) => PermissionDecision | Promise<PermissionDecision>;
