/** Token usage, summed over every model request of a query. Missing counts are zero, never an error. */
export type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
};

/** What a provider may report: any field can be absent or null. */
export type ReportedUsage = { [K in keyof Usage]?: number | null };

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/** Adds `reported` into `total` in place and returns it. */
export function addUsage(total: Usage, reported: ReportedUsage | undefined): Usage {
  if (!reported) return total;
  total.input_tokens += reported.input_tokens ?? 0;
  total.output_tokens += reported.output_tokens ?? 0;
  total.cache_creation_input_tokens += reported.cache_creation_input_tokens ?? 0;
  total.cache_read_input_tokens += reported.cache_read_input_tokens ?? 0;
  return total;
}

export function normalizeUsage(reported: ReportedUsage | undefined): Usage {
  return addUsage(emptyUsage(), reported);
}
