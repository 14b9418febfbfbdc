/**
 * The study's rating settings of issue 15 — `rating_items`, `acceptance`, `training`,
 * `min_response_ms` — as the editor drafts and PATCHes them. Local types until schema.d.ts
 * carries them (the item and scale shapes are the participant's, one definition).
 */
import type { Scenario, StudyDetail } from '../../api';
import { API_BASE } from '../../api';
import type { RatingItem, Scale, ScaleKind } from '../../participant/items';

export type { RatingItem, Scale, ScaleKind };

/** `{item}` for a binary item (acceptable iff 1), or `{item, min}` (acceptable iff value >= min). */
export interface Acceptance {
  item: string;
  min?: number;
}

/** Anchor scenarios played and rated before the test; empty `scenarios`: baseline + most impaired. */
export interface Training {
  enabled: boolean;
  scenarios: string[];
  seconds: number;
}

export interface RatingSettings {
  rating_items: RatingItem[];
  acceptance: Acceptance;
  training: Training;
  min_response_ms: number;
}

/** `GET /api/v1/rating-presets/`: the ACR-5 default, the gaming preset and each kind's default scale. */
export interface RatingPresets {
  acr5: RatingItem[];
  gaming: RatingItem[];
  scales: Record<ScaleKind, Scale>;
}

export const ratingPresetsPath = (): string => `${API_BASE}/rating-presets/`;

export const DEFAULT_ACCEPTANCE: Acceptance = { item: 'overall', min: 3 };
export const DEFAULT_TRAINING: Training = { enabled: false, scenarios: [], seconds: 60 };
export const DEFAULT_MIN_RESPONSE_MS = 1000;

/** The study's rating settings, the contract's defaults for what it does not send (yet). */
export function readRatingSettings(study: StudyDetail, presets: RatingPresets | undefined): RatingSettings {
  const stored = study as StudyDetail & Partial<RatingSettings>;
  return {
    rating_items: stored.rating_items ?? presets?.acr5 ?? [],
    acceptance: stored.acceptance ?? DEFAULT_ACCEPTANCE,
    training: stored.training ?? DEFAULT_TRAINING,
    min_response_ms: stored.min_response_ms ?? DEFAULT_MIN_RESPONSE_MS,
  };
}

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
