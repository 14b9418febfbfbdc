import { describe, expect, it } from 'vitest';

import type { AnalysisDoc } from './analysisTypes';
import { concerns, docWarnings, FIGURE_WHERE, groupWarnings, intervalLegend, intervalStatus, mosScale, severityOf, warningsFor } from './evidence';
import type { DocWarning } from './evidence';
import { planningLines } from './PlanningHint';
import { testDoc } from './testDoc';

const W = (code: string, where: string, message = `${code} at ${where}`): DocWarning => ({ code, where, message });

function withWarnings(warnings: unknown): AnalysisDoc {
  return { ...testDoc(), warnings } as AnalysisDoc;
}

describe('the warnings of the analysis document', () => {
  it('matches a where to a path, its parts and indexed rows, not to a name that only starts alike', () => {
    expect(concerns('reliability.intra', 'reliability')).toBe(true);
    expect(concerns('reliability.screening.p913', 'reliability.*')).toBe(true);
    expect(concerns('reliability', 'reliability.*')).toBe(true);
    expect(concerns('conditions[3]', 'conditions')).toBe(true);
    expect(concerns('tree', 'tree')).toBe(true);
    expect(concerns('treeline', 'tree')).toBe(false);
    expect(concerns('reliability.inter', 'reliability.intra')).toBe(false);
  });

  it('gives each figure its own warnings, by path or by code', () => {
    const doc = withWarnings([
      W('thin_evidence', 'conditions'),
      W('not_assessable', 'reliability.intra'),
      W('not_assessable', 'reliability.screening.p913'),
      W('model_weak', 'tree'),
      W('no_joint_bound', 'joint_model'),
      W('merged_factors', 'meta'),
    ]);
    expect(warningsFor(doc, FIGURE_WHERE.mosPerScenario).map((w) => w.code)).toEqual(['thin_evidence']);
    expect(warningsFor(doc, FIGURE_WHERE.intra).map((w) => w.where)).toEqual(['reliability.intra']);
    expect(warningsFor(doc, FIGURE_WHERE.screening)).toHaveLength(2);
    expect(warningsFor(doc, FIGURE_WHERE.tree).map((w) => w.code)).toEqual(['model_weak']);
    expect(warningsFor(doc, FIGURE_WHERE.thresholds).map((w) => w.code)).toEqual(['no_joint_bound']);
    expect(warningsFor(doc, FIGURE_WHERE.factorMos).map((w) => w.code)).toEqual(['merged_factors']);
  });

  it('groups serious before caution before notes, then by where; an unknown code is a caution', () => {
    const groups = groupWarnings([W('interval_clipped', 'conditions'), W('merged_factors', 'meta'), W('thin_evidence', 'conditions'), W('brand_new', 'x'), W('dry_run', 'meta')]);
    expect(groups.map((g) => g.severity)).toEqual(['serious', 'caution', 'note']);
    expect(groups[0]?.places.map((p) => p.where)).toEqual(['conditions', 'meta']);
    expect(groups[1]?.places.map((p) => p.warnings.map((w) => w.code))).toEqual([['interval_clipped'], ['brand_new']]);
    expect(severityOf('brand_new')).toBe('caution');
  });

  it('reads no warnings from an older document and skips malformed entries', () => {
    expect(docWarnings(testDoc())).toEqual([]);
    expect(docWarnings(null)).toEqual([]);
    expect(docWarnings(withWarnings([W('dry_run', 'meta'), { code: 1 }, null]))).toHaveLength(1);
  });
});

describe('the scale and the status of an interval', () => {
  it('takes the primary item’s scale, else ACR 1–5', () => {
    expect(mosScale(testDoc())).toEqual({ min: 1, max: 5, step: 1 });
    const doc = testDoc();
    doc.meta.primary_item = 'overall';
    doc.items = [{ key: 'overall', question: { en: '', de: '' }, scale: { kind: 'discrete', min: 0, max: 6, step: 1, labels: [] }, required: true, n: 3 }];
    expect(mosScale(doc)).toEqual({ min: 0, max: 6, step: 1 });
  });

  it('uses the document’s ci95_status, else derives it (older documents)', () => {
    const scale = { min: 1, max: 5, step: 1 };
    expect(intervalStatus({ n: 3, mos: 4, ci95_low: 2.9, ci95_high: 5, ci95_status: 'clipped' }, scale)).toBe('clipped');
    expect(intervalStatus({ n: 1, mos: 4, ci95_low: null, ci95_high: null, ci95_status: 'n_too_small' }, scale)).toBe('n_too_small');
    expect(intervalStatus({ mos: 4.85, ci95_low: 4.5, ci95_high: 5.2, ci95_status: 'not_fitted' }, scale)).toBeNull();
    // the n = 2 interval on a 1–5 scale, stored unclipped
    expect(intervalStatus({ n: 2, mos: 2, ci95_low: -10.7, ci95_high: 14.7 }, scale)).toBe('clipped');
    expect(intervalStatus({ n: 1, mos: 3, ci95_low: null, ci95_high: null }, scale)).toBe('n_too_small');
    expect(intervalStatus({ n: 5, mos: 3, ci95_low: 2.5, ci95_high: 3.5 }, scale)).toBe('ok');
    expect(intervalStatus({ n: 0, mos: null, ci95_low: null, ci95_high: null }, scale)).toBeNull();
  });

  it('says in the legend how many intervals are clipped or missing', () => {
    const scale = { min: 0, max: 6, step: 1 };
    expect(intervalLegend(['ok', null, 'ok'], scale)).toBeNull();
    expect(intervalLegend(['clipped', 'clipped', 'n_too_small', 'ok'], scale)).toBe(
      '2 intervals clipped to the scale (0–6): the whisker ends in an open arrow (⌃) where it was cut; 1 value without a whisker: n too small for an interval.',
    );
  });
});

describe('the planning hint', () => {
  const planning = {
    half_width: 0.5,
    confidence: 0.95,
    sd_assumed: 0.986,
    sd_basis: 'pooled_within_condition' as const,
    sd_source: 'pooled within-condition SD',
    raters_per_condition_for_interval: 18,
    raters_per_condition_for_p913: 4,
    ratings_per_group_for_intra: 4,
    levels_per_group_for_intra: 3,
    median_raters_per_condition: 3,
    note: '',
  };

  it('names what each figure needs beside the median raters per condition now, and which fall short', () => {
    const lines = planningLines(planning);
    expect(lines.map((l) => [l.what, l.need, l.now, l.short])).toEqual([
      ['MOS within ±0.5 (95 % CI, SD 0.99, pooled within-condition SD)', '18 raters per condition', '3 (median)', true],
      ['ITU-T P.913 screening assessable', '4 raters per condition', '3 (median)', true],
      ['Intra-rater rule assessable', '≥ 4 ratings over ≥ 3 levels per rater and scenario group', '', false],
    ]);
    expect(planningLines({ ...planning, median_raters_per_condition: 20 }).map((l) => l.short)).toEqual([false, false, false]);
    expect(planningLines({ ...planning, median_raters_per_condition: null }).map((l) => l.now)).toEqual(['— (median)', '— (median)', '']);
  });
});
