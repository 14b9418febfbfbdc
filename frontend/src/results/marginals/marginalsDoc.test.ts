import { describe, expect, it } from 'vitest';

import { testDoc } from '../testDoc';
import { FACTORS, marginalsDoc, marginalsSection } from './marginalsFixture';
import {
  binningText,
  docMarginals,
  itemScale,
  itemText,
  MARGINAL_HEADER,
  marginalItems,
  marginalRows,
  marginalSeries,
  missingText,
  numericAxis,
  pointLabels,
  pointStatus,
  pointText,
  raterCaution,
  statusText,
} from './marginalsDoc';
import type { MarginalFactor } from './marginalsDoc';

const factor = (key: string): MarginalFactor => {
  const f = FACTORS.find((x) => x.factor === key);
  if (!f) throw new Error(`no factor ${key} in the fixture`);
  return f;
};

describe('reading the marginals section', () => {
  it('finds the section, and none in a stored document from before it or of another shape', () => {
    expect(docMarginals(marginalsDoc())?.factors).toHaveLength(3);
    expect(docMarginals(testDoc())).toBeNull();
    expect(docMarginals(null)).toBeNull();
    expect(docMarginals({ ...testDoc(), marginals: { factors: 'x' } as never })).toBeNull();
  });

  it('lists the items in the section order and reads each item on its own scale', () => {
    const doc = marginalsDoc();
    const section = marginalsSection();
    expect(marginalItems(section)).toEqual(['overall', 'fun']);
    expect(itemScale(doc, 'overall')).toEqual({ min: 1, max: 5, step: 1 });
    expect(itemScale(doc, 'fun')).toEqual({ min: 0, max: 6, step: 1 });
    // an item the document does not declare: the top level's scale (ACR 1-5 in an old document)
    expect(itemScale(testDoc(), 'fun')).toEqual({ min: 1, max: 5, step: 1 });
    expect(itemText(doc, 'fun')).toBe('fun — How much fun?');
    expect(itemText(testDoc(), 'fun')).toBe('fun');
  });

  it('takes the series of the game keys asked for, an absent key with no points', () => {
    const s = marginalSeries(marginalsSection(), 'overall', 'Age', ['racing', 'all', 'nowhere']);
    expect(s.map((x) => [x.game, x.nMissing, x.points.length])).toEqual([
      ['racing', 5, 3],
      ['all', 7, 3],
      ['nowhere', 0, 0],
    ]);
    expect(pointLabels(s)).toEqual(['[21, 28]', '(28, 35]', '(35, 45]']);
  });

  it('draws tested numbers on a number line, bins and text levels as categories', () => {
    const section = marginalsSection();
    const games = ['racing', 'rpg', 'all'];
    expect(numericAxis(factor('ds_delay_ms'), marginalSeries(section, 'overall', 'ds_delay_ms', games))).toBe(true);
    expect(numericAxis(factor('Age'), marginalSeries(section, 'overall', 'Age', games))).toBe(false);
    expect(numericAxis(factor('testbed'), marginalSeries(section, 'overall', 'testbed', games))).toBe(false);
  });

  it('says how the points were made, the unit of a number, and the rater caution', () => {
    expect(binningText(factor('ds_delay_ms'), 2)).toBe('network factor, 2 levels as tested');
    expect(binningText(factor('Age'), 3)).toBe('per-rater factor, 12 distinct values in 3 equal-count bins');
    expect(binningText({ ...factor('testbed'), binning: 'top_levels', n_levels: 11 }, 8)).toBe('per-rater factor, 11 levels: the 7 most rated and one "other" point');
    const [delay0] = marginalSeries(marginalsSection(), 'overall', 'ds_delay_ms', ['all'])[0]?.points ?? [];
    expect(delay0 && pointText(factor('ds_delay_ms'), delay0)).toBe('0 ms');
    const other = { label: 'other (4 levels)', level: null, low: null, high: null, n: 3, n_raters: 2, mos: 3, sos: 1, ci95_low: 1, ci95_high: 5, ci95_status: 'ok' as const };
    expect(pointText({ ...factor('ds_delay_ms') }, other)).toBe('other (4 levels)');
    expect(raterCaution(factor('Age'))).toMatch(/per-rater factor: all of a rater's ratings fall in one point/);
    expect(raterCaution(factor('ds_delay_ms'))).toBeNull();
  });

  it('counts the ratings without a value per game, and says nothing without any', () => {
    const section = marginalsSection();
    expect(missingText(factor('Age'), marginalSeries(section, 'overall', 'Age', ['racing', 'rpg', 'all']))).toBe(
      'Ratings without a value of Age, in no point: 5 (racing), 2 (rpg), 7 (all games).',
    );
    expect(missingText(factor('ds_delay_ms'), marginalSeries(section, 'overall', 'ds_delay_ms', ['all']))).toBeNull();
  });

  it("keeps the analysis' interval status, and an empty point has none", () => {
    const scale = { min: 1, max: 5, step: 1 };
    const [racing, , all] = marginalSeries(marginalsSection(), 'overall', 'ds_delay_ms', ['racing', 'rpg', 'all']);
    const rpgAge = marginalSeries(marginalsSection(), 'overall', 'Age', ['rpg'])[0]?.points[2];
    expect(racing?.points.map((p) => pointStatus(p, scale))).toEqual(['ok', 'n_too_small']);
    expect(all?.points.map((p) => statusText(p, scale))).toEqual(['interval clipped to the scale', '95 % CI']);
    expect(rpgAge && [pointStatus(rpgAge, scale), statusText(rpgAge, scale)]).toEqual([null, 'no rating']);
  });

  it('writes one CSV row per point of the factors and games shown', () => {
    const rows = marginalRows(marginalsSection(), 'fun', [factor('Age')], ['rpg', 'all']);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.length === MARGINAL_HEADER.length)).toBe(true);
    // the "fun" item: the fixture's overall MOS + 1; the empty bin keeps n = 0 and no MOS
    expect(rows[0]).toEqual(['fun', 'Age', 'rpg', '[21, 28]', null, 21, 28, 9, 3, 4.1, 1, 3.6, 4.6, 'ok', 2]);
    expect(rows[2]?.slice(7, 14)).toEqual([0, 0, null, null, null, null, 'n_too_small']);
  });
});
