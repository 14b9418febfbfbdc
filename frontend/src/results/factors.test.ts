import { describe, expect, it } from 'vitest';

import { emptyFixture, gridFixture, oneRaterPerGameFixture, table41Fixture } from './fixtures';
import type { AnalysisDoc, MosByFactor } from './analysisTypes';
import { baselineScenario, factorGrid, factorSeries, factorTitle, gameKeys, holdText, isTable41, levelsOf, mergedFactors, mosByFactor, varyingFactors } from './factors';
import { fromTidy, SINGLE_ITEM } from './participantRatings';
import { participantRows, raterStatus } from './participants';
import { interRater, thresholdRows } from './transforms';
import { testDoc } from './testDoc';

describe('factors from the document', () => {
  it('takes the varying factors from meta.network_factors, else from the conditions', () => {
    expect(varyingFactors(gridFixture().doc)).toEqual(['ds_delay_ms', 'us_loss_pct', 'us_ge_p_pct', 'us_ge_r_pct']);
    // an old document (no registry keys): the four columns of table 4.1 all vary
    expect(varyingFactors(table41Fixture().doc).sort()).toEqual(['ds_delay_ms', 'ds_loss_pct', 'us_delay_ms', 'us_loss_pct']);
  });

  it('treats a merged factor (both directions, same level) as one factor', () => {
    const doc = gridFixture().doc;
    // jitter set "both directions (same level)": one factor both_jitter_ms, registry and name
    doc.meta.network_factors = ['ds_delay_ms', 'ds_jitter_ms', 'us_jitter_ms', 'us_loss_pct'];
    doc.meta.merged_factors = { both_jitter_ms: ['ds_jitter_ms', 'us_jitter_ms'] };
    expect(varyingFactors(doc)).toEqual(['ds_delay_ms', 'both_jitter_ms', 'us_loss_pct']);
    // the analysis lists the merged factor itself: kept once
    doc.meta.network_factors = ['ds_delay_ms', 'both_jitter_ms', 'us_loss_pct'];
    expect(varyingFactors(doc)).toEqual(['ds_delay_ms', 'both_jitter_ms', 'us_loss_pct']);
    expect(factorTitle(doc, 'both_jitter_ms')).toBe('Both directions: jitter (ms)');
    if (doc.meta.factor_info) doc.meta.factor_info.both_jitter_ms = { direction: 'both', key: 'jitter_ms', label: 'Jitter', unit: 'ms', kind: 'numeric' };
    expect(factorTitle(doc, 'both_jitter_ms')).toBe('Both directions: jitter (ms)');
    expect(mergedFactors(testDoc())).toEqual({});
  });

  it('labels a column from meta.factor_info, or from its name in an old document', () => {
    const grid = gridFixture().doc;
    expect(factorTitle(grid, 'us_ge_p_pct')).toBe('Upstream burst loss: p (good→bad) (%)');
    expect(factorTitle(table41Fixture().doc, 'ds_delay_ms')).toBe('Downstream delay (ms)');
  });

  it('finds the levels and the baseline', () => {
    const doc = gridFixture().doc;
    expect(levelsOf(doc, 'ds_delay_ms')).toEqual([0, 100, 200]);
    expect(levelsOf(doc, 'us_loss_pct')).toEqual([0, 1, 3]);
    expect(baselineScenario(doc)).toBe('B');
  });

  it('detects the table 4.1 design by its codes and values, nothing else', () => {
    expect(isTable41(table41Fixture().doc)).toBe(true);
    expect(isTable41(gridFixture().doc)).toBe(false);
    expect(isTable41(testDoc())).toBe(false); // a subset of the codes
    const moved = table41Fixture().doc;
    moved.conditions = moved.conditions.map((c) => (c.scenario === 'D1' ? { ...c, ds_delay_ms: 90 } : c));
    expect(isTable41(moved)).toBe(false);
  });
});

/** The analysis' MOS-by-factor section of a fixture (every fixture but table 4.1 has one). */
function section(doc: AnalysisDoc): MosByFactor {
  const found = mosByFactor(doc);
  if (!found) throw new Error('the fixture has mos_by_factor');
  return found;
}

describe('MOS against one factor (the analysis\' numbers)', () => {
  it('reads the points of a factor per game key, nothing recomputed', () => {
    const { doc } = gridFixture();
    const series = factorSeries(section(doc), 'ds_delay_ms', ['racing', 'all'], 'baseline');
    expect(series.map((s) => s.game)).toEqual(['racing', 'all']);
    expect(series[0]?.points.map((p) => p.level)).toEqual([0, 100, 200]);
    expect(series[0]?.points.map((p) => p.scenarios)).toEqual([['B'], ['D100L0'], ['D200L0']]);
    // one scenario per level at baseline: the point is that condition of the analysis
    const racingB = doc.conditions.find((c) => c.scenario === 'B' && c.game === 'racing');
    expect(series[0]?.points[0]).toMatchObject({ n: racingB?.n, mos: racingB?.mos, ci95_low: racingB?.ci95_low, ci95_high: racingB?.ci95_high });
    const allB = doc.conditions.find((c) => c.scenario === 'B' && c.game === 'all');
    expect(series[1]?.points[0]).toMatchObject({ n: allB?.n, mos: allB?.mos, ci95_low: allB?.ci95_low });
    expect(holdText(doc, ['ds_delay_ms'], 'baseline')).toContain('held at baseline (scenario B: Upstream loss (%) = 0 %');
  });

  it('averages the others: every scenario at that level', () => {
    const { doc } = gridFixture();
    const [racing] = factorSeries(section(doc), 'ds_delay_ms', ['racing'], 'averaged');
    expect(racing?.points[0]?.scenarios).toEqual(['B', 'D0L1', 'D0L3', 'GE']);
    expect(racing?.points[0]?.n).toBe(16);
    expect(holdText(doc, ['ds_delay_ms'], 'averaged')).toMatch(/averaged over the tested combinations/);
  });

  it('an entry the section lacks has no points', () => {
    expect(factorSeries(section(gridFixture().doc), 'ds_delay_ms', ['soccer'], 'baseline')).toEqual([{ game: 'soccer', points: [] }]);
  });
});

describe('which games the factor figures show', () => {
  it('one game: that game; every game: pooled ("all"), with each game for the line figure', () => {
    const doc = gridFixture().doc;
    expect(gameKeys(doc, ['rpg'], true)).toEqual(['rpg']);
    expect(gameKeys(doc, ['racing', 'rpg'], true)).toEqual(['racing', 'rpg', 'all']);
    expect(gameKeys(doc, ['racing', 'rpg'], false)).toEqual(['all']);
  });

  it('a strict subset of two or more: each selected game, never a pool the analysis did not make', () => {
    const doc = table41Fixture().doc;
    expect(gameKeys(doc, ['racing', 'rpg'], true)).toEqual(['racing', 'rpg']);
    expect(gameKeys(doc, ['racing', 'rpg'], false)).toEqual(['racing', 'rpg']);
  });
});

describe('factor × factor grid (the analysis\' cells)', () => {
  it('gives the 3 × 3 grid nine cells, each one scenario at baseline', () => {
    const { doc } = gridFixture();
    const grid = factorGrid(section(doc), 'ds_delay_ms', 'us_loss_pct', 'all', 'baseline');
    expect(grid.aLevels).toEqual([0, 100, 200]);
    expect(grid.bLevels).toEqual([0, 1, 3]);
    expect(grid.cells).toHaveLength(9);
    expect(grid.cells.every((c) => c.scenarios.length === 1 && c.n === 8)).toBe(true);
    expect(grid.cells.find((c) => c.a === 200 && c.b === 3)?.scenarios).toEqual(['D200L3']);
  });

  it('reads a pair stored in the other order with a and b swapped', () => {
    const s = section(gridFixture().doc);
    const stored = factorGrid(s, 'ds_delay_ms', 'us_loss_pct', 'racing', 'averaged');
    const swapped = factorGrid(s, 'us_loss_pct', 'ds_delay_ms', 'racing', 'averaged');
    expect(swapped.aLevels).toEqual(stored.bLevels);
    expect(swapped.bLevels).toEqual(stored.aLevels);
    expect(swapped.cells.find((c) => c.a === 3 && c.b === 200)).toEqual({ ...stored.cells.find((c) => c.a === 200 && c.b === 3), a: 3, b: 200 });
  });

  it('keeps the untested pairs (n = 0); GE (p and r changed together) is no baseline pair', () => {
    const s = section(gridFixture().doc);
    const held = factorGrid(s, 'ds_delay_ms', 'us_ge_p_pct', 'racing', 'baseline');
    expect(held.cells).toHaveLength(6);
    expect(held.cells.filter((c) => c.n === 0).map((c) => [c.a, c.b])).toEqual([
      [0, 5],
      [100, 5],
      [200, 5],
    ]);
    const averaged = factorGrid(s, 'ds_delay_ms', 'us_ge_p_pct', 'racing', 'averaged');
    expect(averaged.cells.find((c) => c.a === 0 && c.b === 5)?.scenarios).toEqual(['GE']);
  });

  it('a document stored before the section has none (the figures ask for a re-run)', () => {
    expect(mosByFactor(table41Fixture().doc)).toBeNull();
  });
});

describe('pilot data', () => {
  it('reads null quantiles (one rater per game) without failing', () => {
    const rows = interRater(oneRaterPerGameFixture().doc, ['racing', 'rpg']).rows;
    expect(rows[0]).toMatchObject({ q25: null, median: null, q75: null, mean: null });
  });

  it('lists only the KPI thresholds that exist', () => {
    expect(thresholdRows(gridFixture().doc).map((r) => `${r.direction}/${r.quantity}`)).toEqual(['downstream/delay', 'upstream/loss']);
    expect(thresholdRows(emptyFixture().doc)).toEqual([]);
  });
});

describe('participants', () => {
  it('gives status, reason, bias and ratings per scenario', () => {
    const { doc, ratings } = gridFixture();
    const rows = participantRows(doc, fromTidy(ratings));
    expect(rows.map((r) => r.status)).toEqual(['reliable', 'reliable', 'reliable', 'unreliable']);
    expect(rows[3]?.reason).toBe('|rho| = 0.400 <= 0.6');
    expect(rows[0]?.bias).toBeCloseTo(-0.3);
    expect(rows[0]?.ratings.B?.[SINGLE_ITEM]).toHaveLength(2);
    expect(rows[0]?.sessions).toBe(2);
  });

  it('reads old documents: no status means ρ decides, undefined ρ is not assessable', () => {
    expect(raterStatus({ rater_id: 'a', rho: null, reliable: false }, 0.6).status).toBe('not_assessable');
    expect(raterStatus({ rater_id: 'a', rho: 0.5, reliable: false }, 0.6)).toEqual({ status: 'unreliable', reason: '|ρ| = 0.500 ≤ 0.6' });
    const pilot = participantRows(oneRaterPerGameFixture().doc, null);
    expect(pilot.map((r) => r.status)).toEqual(['not_assessable', 'not_assessable']);
  });
});
