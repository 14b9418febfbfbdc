/** Plain words for the result of "Apply baseline (test)" on the stations page. */
import type { BaselineResult, Impairment } from '../api';
import { formatNumber } from '../components/format';

export const DIRECTION_LABEL = {
  upstream: 'upstream (client → server)',
  downstream: 'downstream (server → client)',
} as const;

export function describeImpairment(value: Impairment): string {
  return `${formatNumber(value.delay_ms)} ms delay, ${formatNumber(value.jitter_ms)} ms jitter, ${formatNumber(value.loss_pct)} % loss`;
}

const isNeutral = (value: Impairment): boolean => value.delay_ms === 0 && value.jitter_ms === 0 && value.loss_pct === 0;

export interface BaselineReport {
  headline: string;
  /** One line per direction, as the agent read it back. */
  directions: string[];
  /** What kind of agent answered and how long the test profile stays. */
  notes: string[];
}

/** The verified state the agent returned for the neutral test profile. */
export function baselineReport(result: BaselineResult, formatTime: (iso: string) => string): BaselineReport {
  const { upstream, downstream } = result.verified_profile;
  const neutral = isNeutral(upstream) && isNeutral(downstream);
  // Only a state dumped from a kernel verifies anything; a dry-run agent merely recorded it.
  const headline = !result.kernel_read_back
    ? neutral
      ? 'Not verified: the agent recorded the baseline (no impairment) without applying it to a kernel.'
      : 'The agent recorded a state that is not the baseline.'
    : neutral
      ? 'Verified: the agent applied the baseline (no impairment) and read it back.'
      : 'The agent read back a state that is not the baseline.';
  const notes: string[] = [];
  if (result.backend === 'dry-run') {
    notes.push('Dry-run agent: it recorded the kernel operations and changed no interface.');
  } else if (result.backend) {
    notes.push(`Agent backend: ${result.backend}.`);
  }
  const until = result.lease_expires_at ? ` (at ${formatTime(result.lease_expires_at)})` : '';
  notes.push(`The agent removes the test profile by itself after ${formatNumber(result.lease_seconds)} s${until}.`);
  return {
    headline,
    directions: [
      `${DIRECTION_LABEL.upstream}: ${describeImpairment(upstream)}`,
      `${DIRECTION_LABEL.downstream}: ${describeImpairment(downstream)}`,
    ],
    notes,
  };
}
