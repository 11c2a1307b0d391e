// All benchmarks, one after another. These print figures; they are not tests and never fail on speed.
import { runColdStart } from "./cold-start.mjs";
import { runFootprint } from "./footprint.mjs";
import { runGrepGlob } from "./grep-glob.mjs";
import { runLoopOverhead } from "./loop-overhead.mjs";
import { runPromptCaching } from "./prompt-caching.mjs";
import { runTracing } from "./tracing.mjs";

await runLoopOverhead();
await runPromptCaching();
await runTracing();
await runColdStart();
await runGrepGlob();
runFootprint();
