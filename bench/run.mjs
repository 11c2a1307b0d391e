// All benchmarks, one after another. These print figures; they are not tests and never fail on speed.
import { runColdStart } from "./cold-start.mjs";
import { runFootprint } from "./footprint.mjs";
import { runLoopOverhead } from "./loop-overhead.mjs";

await runLoopOverhead();
await runColdStart();
runFootprint();
