/**
 * The rating items as the editor's form holds them: numbers as typed text, so a half-typed
 * value stays on screen and a bad one goes to the API, which names the field in its 4xx.
 */
import type { RatingItem, Scale, ScaleKind } from './ratingSettings';
import { toNumber } from './editRow';

export interface LabelDraft {
  value: string;
  en: string;
  de: string;
}

export interface ScaleDraft {
  kind: ScaleKind;
  min: string;
  max: string;
  /** Empty: a continuous scale takes any real value. */
  step: string;
  labels: LabelDraft[];
}

export interface ItemDraft {
  key: string;
  en: string;
  de: string;
  required: boolean;
  scale: ScaleDraft;
}

/** Kinds with fixed points 1..5 and all five labelled. */
export const FIVE_POINT: readonly ScaleKind[] = ['acr5', 'dcr5'];

/** Short enough for the select at any width; the long name is the field's hint (issue 35: clipped). */
export const KIND_NAMES: Record<ScaleKind, string> = {
  acr5: 'ACR-5',
  dcr5: 'DCR-5',
  discrete: 'Discrete k-point',
  continuous: 'Continuous slider',
  binary: 'Yes / no',
};

/** What each scale kind is, shown under the select. */
export const KIND_DESCRIPTIONS: Record<ScaleKind, string> = {
  acr5: 'ACR-5: absolute category rating, 1 bad … 5 excellent (ITU-T P.910).',
  dcr5: 'DCR-5: degradation compared with the baseline, 1 very annoying … 5 imperceptible.',
  discrete: 'Discrete k-point scale: whole points from the lowest to the highest value.',
  continuous: 'Continuous slider: any value in the range, or on the step.',
  binary: 'Yes / no: 1 yes, 0 no.',
};

const labels = (texts: [string, string][]) => texts.map(([en, de], i) => ({ value: i + 1, text: { en, de } }));

/** Built-in defaults (ITU-T P.800/P.910 wording), used until GET /rating-presets/ answers. */
const FALLBACK_SCALES: Record<ScaleKind, Scale> = {
  acr5: {
    kind: 'acr5',
    min: 1,
    max: 5,
    step: 1,
    labels: labels([
      ['Bad', 'Schlecht'],
      ['Poor', 'Dürftig'],
      ['Fair', 'Ordentlich'],
      ['Good', 'Gut'],
      ['Excellent', 'Ausgezeichnet'],
    ]),
  },
  dcr5: {
    kind: 'dcr5',
    min: 1,
    max: 5,
    step: 1,
    labels: labels([
      ['Very annoying', 'Sehr störend'],
      ['Annoying', 'Störend'],
      ['Slightly annoying', 'Leicht störend'],
      ['Perceptible but not annoying', 'Wahrnehmbar, aber nicht störend'],
      ['Imperceptible', 'Nicht wahrnehmbar'],
    ]),
  },
  discrete: { kind: 'discrete', min: 1, max: 7, step: 1, labels: [] },
  continuous: { kind: 'continuous', min: 1, max: 7, step: null, labels: [] },
  binary: { kind: 'binary', min: 0, max: 1, step: 1, labels: [] },
};

export function scaleToDraft(scale: Scale): ScaleDraft {
  return {
    kind: scale.kind,
    min: String(scale.min),
    max: String(scale.max),
    step: scale.step === null ? '' : String(scale.step),
    labels: scale.labels.map((l) => ({ value: String(l.value), en: l.text.en, de: l.text.de })),
  };
}

export function itemToDraft(item: RatingItem): ItemDraft {
  return { key: item.key, en: item.question.en, de: item.question.de, required: item.required, scale: scaleToDraft(item.scale) };
}

/** The scale a new kind starts from: the server's default for it, else the built-in one. */
export function defaultScale(kind: ScaleKind, scales: Partial<Record<ScaleKind, Scale>> | undefined): ScaleDraft {
  return scaleToDraft(scales?.[kind] ?? FALLBACK_SCALES[kind]);
}

export function newItemDraft(index: number, scales: Partial<Record<ScaleKind, Scale>> | undefined): ItemDraft {
  return { key: `item_${index + 1}`, en: '', de: '', required: true, scale: defaultScale('acr5', scales) };
}

/** The API body of one item; numbers the user left unreadable are sent as typed, for the API to name. */
export function draftToItem(draft: ItemDraft): Record<string, unknown> {
  const { scale } = draft;
  return {
    key: draft.key.trim(),
    question: { en: draft.en, de: draft.de },
    required: draft.required,
    scale: {
      kind: scale.kind,
      min: toNumber(scale.min),
      max: toNumber(scale.max),
      step: scale.step.trim() === '' ? null : toNumber(scale.step),
      labels: scale.labels.map((l) => ({ value: toNumber(l.value), text: { en: l.en, de: l.de } })),
    },
  };
}

/** The item as the acceptance picker needs it (kind, range) from a draft, or null if unreadable. */
export function draftScaleRange(draft: ItemDraft): { binary: boolean; min: number; max: number } {
  return { binary: draft.scale.kind === 'binary', min: Number(draft.scale.min), max: Number(draft.scale.max) };
}

/** Moves the entry at `from` by `by` places (−1 up, +1 down); out of range leaves the list as is. */
export function move<T>(list: readonly T[], from: number, by: number): T[] {
  const to = from + by;
  if (to < 0 || to >= list.length) return [...list];
  const out = [...list];
  const [entry] = out.splice(from, 1);
  if (entry !== undefined) out.splice(to, 0, entry);
  return out;
}

/** The error paths (under `rating_items.<i>`) that the item's fields show next to themselves. */
export function shownErrorPaths(draft: ItemDraft): string[] {
  const fixed = FIVE_POINT.includes(draft.scale.kind) || draft.scale.kind === 'binary';
  return [
    'key',
    'question',
    'question.en',
    'question.de',
    'required',
    'scale',
    'scale.kind',
    'scale.labels',
    ...(fixed ? [] : ['scale.min', 'scale.max', 'scale.step']),
    ...draft.scale.labels.flatMap((_, j) => [`scale.labels.${j}`, `scale.labels.${j}.value`, `scale.labels.${j}.text`]),
  ];
}
