// Statistics for benchmarks on a shared, noisy machine: compare two sides by their paired per-round ratio (both
// sides ran back to back in the same round, so machine noise hits them alike), and report the median ratio with
// its interquartile range and a bootstrap 95% interval of the median. A verdict is only drawn when the interval
// clears the threshold; otherwise the difference is within the noise.

export function quantile(sorted, q) {
  if (!sorted.length) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

export function medianOf(values) {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** Deterministic PRNG (mulberry32) so a report can be reproduced from its samples. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Bootstrap 95% interval of the median of `values` (2,000 resamples). */
export function bootstrapMedianInterval(values, resamples = 2000, seed = 42) {
  const next = random(seed);
  const medians = [];
  for (let i = 0; i < resamples; i++) {
    const sample = Array.from({ length: values.length }, () => values[Math.floor(next() * values.length)]);
    medians.push(medianOf(sample));
  }
  medians.sort((a, b) => a - b);
  return [quantile(medians, 0.025), quantile(medians, 0.975)];
}

/**
 * Paired ratios a[i] / b[i]: median, IQR and bootstrap 95% interval of the median, rounded for printing, plus a
 * verdict against `target` (a ratio the a-side must stay at or under).
 */
export function pairedRatio(aTimes, bTimes, target) {
  if (aTimes.length !== bTimes.length) throw new Error("pairedRatio: both sides need one sample per round");
  const ratios = aTimes.map((a, i) => a / bTimes[i]).sort((x, y) => x - y);
  const [low, high] = bootstrapMedianInterval(ratios);
  const round = value => +value.toFixed(4);
  const verdict =
    target === undefined
      ? undefined
      : high <= target
        ? `meets target (95% interval of the median ratio ≤ ${target})`
        : low > target
          ? `misses target (95% interval of the median ratio > ${target})`
          : `inconclusive: the interval straddles ${target}; rerun with more rounds`;
  return {
    medianRatio: round(quantile(ratios, 0.5)),
    iqr: [round(quantile(ratios, 0.25)), round(quantile(ratios, 0.75))],
    median95: [round(low), round(high)],
    rounds: ratios.length,
    ...(verdict ? { verdict } : {}),
  };
}
