/** What a `permission` callback is asked before a tool runs (after its input passed the schema). */
export interface PermissionRequest<TContext = unknown> {
  toolName: string;
  input: unknown;
  toolUseId: string;
  context: TContext | undefined;
  signal: AbortSignal;
}

export type PermissionDecision =
  /** `updatedInput` replaces the model's input (it is validated against the tool's schema again). */
  | { behavior: "allow"; updatedInput?: unknown }
  /** The model receives `message` in an error tool_result and can explain or choose another path. */
  | { behavior: "deny"; message?: string };

export type PermissionCallback<TContext = unknown> = (
  request: PermissionRequest<TContext>,
) => PermissionDecision | Promise<PermissionDecision>;
