/**
 * A hand-made document with a `marginals` section for the view's tests: two items on
 * different scales (overall 1–5, fun 0–6), a network factor with tested levels, a per-rater
 * numeric factor in equal-count bins with questionnaire gaps (n_missing), a per-rater
 * nominal factor, and one column given no view; points with an ordinary, a clipped, a
 * too-small and no interval (n = 0). Shapes as `qoe_analysis.stats.marginals` writes them.
 */
import type { AnalysisDoc } from '../analysisTypes';
import { testDoc } from '../testDoc';
import type { MarginalFactor, MarginalPoint, MarginalSeries, Marginals } from './marginalsDoc';

/** [label, level, low, high, n, n_raters, mos, ci95_low, ci95_high, status]; SOS 1 where n ≥ 2. */
type Row = [string, number | string | null, number | null, number | null, number, number, number | null, number | null, number | null, MarginalPoint['ci95_status']];

function point([label, level, low, high, n, nRaters, mos, lo, hi, status]: Row): MarginalPoint {
  return { label, level, low, high, n, n_raters: nRaters, mos, sos: n >= 2 ? 1 : null, ci95_low: lo, ci95_high: hi, ci95_status: status };
}

const ok = (label: string, level: number | string | null, low: number | null, high: number | null, mos: number): Row => [label, level, low, high, 9, 3, mos, mos - 0.5, mos + 0.5, 'ok'];

export const FACTORS: MarginalFactor[] = [
  { factor: 'ds_delay_ms', label: 'Delay, downstream', source: 'network', kind: 'numeric', unit: 'ms', binning: 'levels', n_levels: 2 },
  { factor: 'Age', label: 'Age', source: 'rater', kind: 'numeric', unit: '', binning: 'quantiles', n_levels: 12 },
  { factor: 'testbed', label: 'testbed', source: 'rater', kind: 'nominal', unit: '', binning: 'levels', n_levels: 2 },
];

/** Points per factor and game of the item "overall" (1–5); "fun" (0–6) has the same points, MOS + 1. */
const OVERALL: Record<string, Record<string, { missing: number; rows: Row[] }>> = {
  ds_delay_ms: {
    racing: { missing: 0, rows: [ok('0', 0, 0, 0, 4), ['80', 80, 80, 80, 1, 1, 2, null, null, 'n_too_small']] },
    rpg: { missing: 0, rows: [ok('0', 0, 0, 0, 3.5), ok('80', 80, 80, 80, 2.5)] },
    all: { missing: 0, rows: [['0', 0, 0, 0, 18, 6, 4.8, 4.3, 5, 'clipped'], ok('80', 80, 80, 80, 2.4)] },
  },
  Age: {
    racing: { missing: 5, rows: [ok('[21, 28]', null, 21, 28, 3), ok('(28, 35]', null, 28, 35, 3.2), ok('(35, 45]', null, 35, 45, 2.9)] },
    rpg: { missing: 2, rows: [ok('[21, 28]', null, 21, 28, 3.1), ok('(28, 35]', null, 28, 35, 3.3), ['(35, 45]', null, 35, 45, 0, 0, null, null, null, 'n_too_small']] },
    all: { missing: 7, rows: [ok('[21, 28]', null, 21, 28, 3.05), ok('(28, 35]', null, 28, 35, 3.25), ok('(35, 45]', null, 35, 45, 2.9)] },
  },
  testbed: {
    racing: { missing: 0, rows: [ok('mobile', 'mobile', null, null, 2.8), ok('wired', 'wired', null, null, 3.4)] },
    rpg: { missing: 0, rows: [ok('mobile', 'mobile', null, null, 2.9), ok('wired', 'wired', null, null, 3.5)] },
    all: { missing: 0, rows: [ok('mobile', 'mobile', null, null, 2.85), ok('wired', 'wired', null, null, 3.45)] },
  },
};

const shift = (p: MarginalPoint, by: number): MarginalPoint => ({
  ...p,
  mos: p.mos === null ? null : p.mos + by,
  ci95_low: p.ci95_low === null ? null : p.ci95_low + by,
  ci95_high: p.ci95_high === null ? null : Math.min(6, p.ci95_high + by),
});

function series(): MarginalSeries[] {
  return ['overall', 'fun'].flatMap((item) =>
    FACTORS.flatMap((f) =>
      ['racing', 'rpg', 'all'].map((game) => {
        const entry = OVERALL[f.factor]?.[game] ?? { missing: 0, rows: [] };
        const points = entry.rows.map(point).map((p) => (item === 'fun' ? shift(p, 1) : p));
        return { item, factor: f.factor, game, n_missing: entry.missing, points };
      }),
    ),
  );
}

export function marginalsSection(raters: Marginals['raters'] = 'all'): Marginals {
  return {
    method: 'the ratings whose factor value falls in a point pooled',
    binning: 'at most 8 distinct values: one point per tested value; else 5 equal-count bins',
    max_levels: 8,
    n_bins: 5,
    raters,
    factors: FACTORS,
    series: series(),
    notes: { 'Gaming hours': 'fewer than two distinct values among the ratings: no marginal view' },
  };
}

const scale = (min: number, max: number) => ({ kind: 'discrete' as const, min, max, step: 1, labels: [] });

/** `testDoc()` (games racing and rpg) with two items and the section. */
export function marginalsDoc(raters: Marginals['raters'] = 'all'): AnalysisDoc {
  const doc = testDoc();
  return {
    ...doc,
    meta: { ...doc.meta, primary_item: 'overall' },
    items: [
      { key: 'overall', question: { en: 'Overall quality?', de: 'Gesamtqualität?' }, scale: scale(1, 5), required: true, n: 40 },
      { key: 'fun', question: { en: 'How much fun?', de: 'Wie viel Spaß?' }, scale: scale(0, 6), required: true, n: 40 },
    ],
    marginals: marginalsSection(raters),
  };
}
