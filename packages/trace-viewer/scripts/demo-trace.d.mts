import type { SDKResultMessage, Usage } from "@agent-lattice/core";

export declare const DEMO_USAGE: Record<"lead1" | "lead2" | "reviewer1" | "reviewer2" | "lead3", Usage>;
export declare const DEMO_PROMPT: string;
export declare const DEMO_ANSWER: string;
export declare const DEMO_REVIEW: string;
export declare function recordDemoTrace(path: string): Promise<SDKResultMessage>;
