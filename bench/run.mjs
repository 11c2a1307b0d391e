// All benchmarks, one after another. These print figures; they are not tests and never fail on speed.
import { runColdStart } from "./cold-start.mjs";
import { runFootprint } from "./footprint.mjs";
import { runGrepGlob } from "./grep-glob.mjs";
import { runLoopOverhead } from "./loop-overhead.mjs";
import { runPeerLoops } from "./peer-loops.mjs";
import { runPostgresMailbox } from "./postgres-mailbox.mjs";
import { runPromptCaching } from "./prompt-caching.mjs";
import { runTeams } from "./teams.mjs";
import { runTraceViewer } from "./trace-viewer.mjs";
import { runTracing } from "./tracing.mjs";
import { runTracingAdapters } from "./tracing-adapters.mjs";
import { runTracingAdapterEvents } from "./tracing-adapters-events.mjs";
import { runWriteBoundary } from "./write-boundary.mjs";

await runLoopOverhead();
await runPeerLoops();
await runPromptCaching();
await runTracing();
await runTracingAdapters();
await runTracingAdapterEvents();
await runColdStart();
await runGrepGlob();
await runWriteBoundary();
await runTeams();
await runPostgresMailbox();
await runTraceViewer();
runFootprint();
