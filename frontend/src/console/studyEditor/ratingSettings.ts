/**
 * The study's rating settings of issue 15 — `rating_items`, `acceptance`, `training`,
 * `min_response_ms` — and the rules the editor applies to them (the item and scale types
 * are the participant's, one definition).
 */
import type { Scenario, StudyDetail } from '../../api';
import { API_BASE } from '../../api';
import type { components } from '../../api/schema';
import type { Complete } from '../../api/types';
import type { RatingItem, Scale, ScaleKind } from '../../participant/items';

export type { RatingItem, Scale, ScaleKind };

/**
 * `{item}` for a binary item (acceptable iff 1), or `{item, min}` (acceptable iff value >= min).
 * Not {@link Complete}: `min` is really optional.
 */
export type Acceptance = NonNullable<components['schemas']['StudyDetail']['acceptance']>;

/** Anchor scenarios played and rated before the test; empty `scenarios`: baseline + most impaired. */
export type Training = StudyDetail['training'];

/** `GET /api/v1/rating-presets/`: the ACR-5 default, the gaming preset and each kind's default scale. */
export type RatingPresets = Complete<components['schemas']['RatingPresets']>;

export const ratingPresetsPath = (): string => `${API_BASE}/rating-presets/`;

/** How impaired a scenario is: delay ms + 10 × loss % summed over both directions (contract). */
export function impairment(scenario: Scenario): number {
  const direction = (d: Scenario['upstream']) => d.delay_ms + 10 * d.loss_pct;
  return direction(scenario.upstream) + direction(scenario.downstream);
}

/** The default training anchors: the baseline and the most impaired scenario (ties: first code). */
export function defaultAnchors(scenarios: readonly Scenario[]): string[] {
  const baseline = scenarios.find((s) => s.is_baseline);
  const others = scenarios.filter((s) => !s.is_baseline).sort((a, b) => impairment(b) - impairment(a) || a.code.localeCompare(b.code));
  return [baseline?.code, others[0]?.code].filter((code): code is string => code !== undefined);
}

/** The acceptance rule for an item: binary → the item itself; else a cut at the scale's 3-of-5 point. */
export function acceptanceFor(item: RatingItem): Acceptance {
  if (item.scale.kind === 'binary') return { item: item.key };
  const { min, max } = item.scale;
  return { item: item.key, min: item.scale.kind === 'acr5' ? 3 : min + (max - min) / 2 };
}
