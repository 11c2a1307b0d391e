import type { TraceEvent } from "../src/index.js";

export declare function syntheticTrace(options?: { events?: number; seed?: number }): TraceEvent[];
export declare function toJsonl(events: readonly TraceEvent[]): string;
