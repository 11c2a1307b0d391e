import type { SDKResultMessage, Usage } from "@agent-lattice/core";

export declare const TEAM_USAGE: Record<
  "lead1" | "lead2" | "lead3" | "researcher1" | "researcher2" | "docsLead1" | "docsLead2" | "reviewer1",
  Usage
>;
export declare const TEAM_PROMPT: string;
export declare const TEAM_RESEARCH_TASK: string;
export declare const TEAM_DOCS_TASK: string;
export declare const TEAM_REVIEW_TASK: string;
export declare const TEAM_FINDINGS: string;
export declare const TEAM_DOCS_ANSWER: string;
export declare const TEAM_REVIEW: string;
export declare const TEAM_ANSWER: string;
export declare const TEAM_CALLS: { research: string; docs: string; review: string };
export declare function recordTeamTrace(path: string): Promise<SDKResultMessage | undefined>;
