/**
 * Rating items and their scales (issue 15 contract; Python source of truth:
 * analysis/src/qoe_analysis/scales.py): the generated API types and the rules on them.
 */
import type { components } from '../api/schema';
import type { Lang } from '../shared/participantLink';
import { scaleLabel } from './i18n';

/** One rating item: key, question per language, scale, required. */
export type RatingItem = components['schemas']['RatingPresets']['gaming'][number];
/** acr5/dcr5: 1..5 (ITU-T P.910/P.800); discrete: integer k-point; continuous: slider; binary: 0 no, 1 yes. */
export type Scale = RatingItem['scale'];
export type ScaleKind = Scale['kind'];
export type ScaleLabel = Scale['labels'][number];
export type LocalText = RatingItem['question'];

/** The values entered on one rating screen, by item key. */
export type ItemValues = Record<string, number>;

/** A scale whose points are chosen one by one (radio buttons); the rest is a slider. */
export function isPointScale(scale: Scale): boolean {
  return scale.kind !== 'continuous';
}

/** The points of a point scale, lowest first (integers from min to max). */
export function scalePoints(scale: Scale): number[] {
  const points: number[] = [];
  for (let v = Math.ceil(scale.min); v <= scale.max; v += 1) points.push(v);
  return points;
}

/** Valid iff min <= v <= max and, on a point scale, an integer (the contract's rule). */
export function isValidValue(scale: Scale, value: number): boolean {
  if (!Number.isFinite(value) || value < scale.min || value > scale.max) return false;
  return scale.kind === 'continuous' || Number.isInteger(value);
}

export function labelFor(scale: Scale, value: number, lang: Lang): string | null {
  return scale.labels.find((l) => l.value === value)?.text[lang] ?? null;
}

/** The required items that have no valid value yet, in the screen's order. */
export function missingItems(items: readonly RatingItem[], values: ItemValues): RatingItem[] {
  return items.filter((item) => {
    const value = values[item.key];
    return item.required && (value === undefined || !isValidValue(item.scale, value));
  });
}

/** Only the values of the shown items that are valid on their scales (what is sent). */
export function submittableValues(items: readonly RatingItem[], values: ItemValues): ItemValues {
  const out: ItemValues = {};
  for (const item of items) {
    const value = values[item.key];
    if (value !== undefined && isValidValue(item.scale, value)) out[item.key] = value;
  }
  return out;
}

/**
 * The items of a view from before issue 15 (no `items`): one required ACR item "overall"
 * on the view's legacy `scale` labels.
 */
export function legacyItems(scale: readonly { score: number; label: string }[], question: LocalText): RatingItem[] {
  const scores = scale.map((s) => s.score);
  const labels = scale.map((s) => s.label);
  return [
    {
      key: 'overall',
      question,
      required: true,
      scale: {
        kind: 'acr5',
        min: Math.min(...scores, 1),
        max: Math.max(...scores, 5),
        step: 1,
        labels: scale.map((s) => ({
          value: s.score,
          text: { en: scaleLabel('en', labels, s.score), de: scaleLabel('de', labels, s.score) },
        })),
      },
    },
  ];
}
