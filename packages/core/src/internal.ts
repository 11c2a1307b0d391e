/**
 * @agent-lattice/core/internal — for AgentLattice's own sibling packages (builtin-tools, team, adapters), not for
 * applications: no semver promise beyond the package's own version, which the packages share. It holds the one
 * implementation of each rule that several packages must decide the same way (physical paths, grant coverage, the
 * descriptor-checked write, output contracts,
 * option validation, tool names, trace emission under the failure policy, the event channel), so no package keeps
 * a copy of a security or contract decision — and what the hosted tracing adapters share whatever their library
 * (trace-tree/: events to one tree per query, their payload texts, the deferred event queue, delivery failures).
 */

export { declaredOutputSchemaOf, isAgentSpec } from "./agent-spec.js";
export { runDelegatedChild } from "./agent-tool.js";
export { acceptGrants, parseAgentToolInput, renderTask } from "./agent-tool-input.js";
export { BRANDS, brand, brandOf } from "./brand.js";
export { EventChannel } from "./event-channel.js";
export { bindFailurePolicy, failurePolicyOf } from "./failure-policy.js";
export {
  absoluteFrom,
  isWithin,
  PathResolutionError,
  readPath,
  resolvePhysical,
  resolvePhysicalEntry,
} from "./fs/physical-path.js";
export {
  closeOpened,
  type OpenedForWrite,
  openForWrite,
  readOpened,
  replaceOpened,
  type SafeOpenOptions,
  type SafeOpenResult,
  type UnsafeFileCode,
  UnsafeFileError,
  writeFileWithinScope,
} from "./fs/safe-open.js";
export {
  allowedRootsOf,
  checkWritePath,
  coveringRoot,
  type DeniedWriteCheck,
  hasWriteAccess,
  type WriteCheck,
  type WriteCheckOptions,
  type WriteScope,
} from "./fs/write-scope.js";
export { assertKnownOptions, assertPositiveInteger } from "./option-validation.js";
export { childOutput, resolveOutputContract } from "./output-contract.js";
export {
  errorData,
  RunTrace,
  type RunTraceOptions,
  redactingTracer,
  safeString,
  type TraceEventHook,
} from "./run-trace.js";
export { isSchemaLike, toJsonSchema, toToolInputSchema, validateWithSchema } from "./schema.js";
export { TOOL_NAME } from "./tool.js";
export { messageOf } from "./tool-execution.js";
export { DeferredEvents } from "./trace-tree/deferred-events.js";
export { DeliveryFailures, describeFailure } from "./trace-tree/delivery-failures.js";
export {
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_QUIET_MS,
  QuietTimer,
  type QuietTiming,
} from "./trace-tree/quiet-timer.js";
export {
  requestMessages,
  resultErrorText,
  resultOutputs,
  runStartMetadata,
  systemPromptText,
  toolCallMetadata,
  toolResultText,
  traceErrorText,
  traceTimeMs,
} from "./trace-tree/trace-payloads.js";
export { type TraceCall, type TraceRun, TraceTreeMapper } from "./trace-tree/trace-tree-mapper.js";
export { assertContextTracer, deliver, releaseTracer, withRelease } from "./tracer.js";
export { addUsage, emptyUsage } from "./usage.js";
