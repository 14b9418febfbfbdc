import { describe, expect, it } from 'vitest';

import { emptyFixture, gridFixture, oneRaterPerGameFixture, table41Fixture } from './fixtures';
import {
  baselineScenario,
  factorGrid,
  factorTitle,
  holdText,
  isTable41,
  levelsOf,
  mosAgainstFactor,
  pool,
  t975,
  varyingFactors,
} from './factors';
import { participantRows, raterStatus } from './participants';
import { interRater, thresholdRows } from './transforms';
import { testDoc } from './testDoc';

describe('factors from the document', () => {
  it('takes the varying factors from meta.network_factors, else from the conditions', () => {
    expect(varyingFactors(gridFixture().doc)).toEqual(['ds_delay_ms', 'us_loss_pct', 'us_ge_p_pct', 'us_ge_r_pct']);
    // an old document (no registry keys): the four columns of table 4.1 all vary
    expect(varyingFactors(table41Fixture().doc).sort()).toEqual(['ds_delay_ms', 'ds_loss_pct', 'us_delay_ms', 'us_loss_pct']);
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

describe('pooled MOS', () => {
  it('uses the Student t quantile of the analysis', () => {
    expect(t975(1)).toBeCloseTo(12.706, 3);
    expect(t975(30)).toBeCloseTo(2.042, 3);
    expect(t975(60)).toBeCloseTo(2.0003, 3);
    expect(t975(0)).toBeNaN();
  });

  it('keeps one condition as the analysis gave it and pools several from their distributions', () => {
    const doc = gridFixture().doc;
    const racingB = doc.conditions.filter((c) => c.scenario === 'B' && c.game === 'racing');
    expect(pool(racingB).mos).toBe(racingB[0]?.mos);
    const both = doc.conditions.filter((c) => c.scenario === 'B' && c.game !== 'all');
    const all = doc.conditions.find((c) => c.scenario === 'B' && c.game === 'all');
    const pooled = pool(both);
    expect(pooled.n).toBe(all?.n);
    expect(pooled.mos).toBeCloseTo(all?.mos ?? Number.NaN, 10);
    expect(pooled.low).toBeCloseTo(all?.ci95_low ?? Number.NaN, 10);
    expect(pool([]).mos).toBeNull();
  });
});

describe('MOS against one factor', () => {
  it('holds the others at baseline: one scenario per level', () => {
    const { doc } = gridFixture();
    const data = mosAgainstFactor(doc, 'ds_delay_ms', ['racing', 'rpg'], 'baseline');
    expect(data.levels).toEqual([0, 100, 200]);
    expect(data.series[0]?.points.map((p) => p.scenarios)).toEqual([['B'], ['D100L0'], ['D200L0']]);
    expect(data.series[0]?.points.every((p) => p.n === 4)).toBe(true);
    expect(holdText(doc, ['ds_delay_ms'], 'baseline')).toContain('held at baseline (scenario B: Upstream loss (%) = 0 %');
  });

  it('averages the others: every scenario at that level', () => {
    const { doc } = gridFixture();
    const data = mosAgainstFactor(doc, 'ds_delay_ms', ['racing'], 'averaged');
    expect(data.series[0]?.points[0]?.scenarios).toEqual(['B', 'D0L1', 'D0L3', 'GE']);
    expect(data.series[0]?.points[0]?.n).toBe(16);
    expect(holdText(doc, ['ds_delay_ms'], 'averaged')).toMatch(/averaged over the tested combinations/);
  });
});

describe('factor × factor grid', () => {
  it('gives the 3 × 3 grid nine cells, each one scenario at baseline', () => {
    const { doc } = gridFixture();
    const grid = factorGrid(doc, 'ds_delay_ms', 'us_loss_pct', ['racing', 'rpg'], 'baseline');
    expect(grid.cells).toHaveLength(9);
    expect(grid.cells.every((c) => c.scenarios.length === 1 && c.n === 8)).toBe(true);
    expect(grid.cells.find((c) => c.a === 200 && c.b === 3)?.scenarios).toEqual(['D200L3']);
  });

  it('marks untested pairs with n = 0; GE (p and r changed together) is no baseline pair', () => {
    const { doc } = gridFixture();
    const held = factorGrid(doc, 'ds_delay_ms', 'us_ge_p_pct', ['racing'], 'baseline');
    expect(held.cells).toHaveLength(6);
    expect(held.cells.filter((c) => c.mos === null).map((c) => [c.a, c.b])).toEqual([
      [0, 5],
      [100, 5],
      [200, 5],
    ]);
    const averaged = factorGrid(doc, 'ds_delay_ms', 'us_ge_p_pct', ['racing'], 'averaged');
    expect(averaged.cells.filter((c) => c.mos === null).map((c) => [c.a, c.b])).toEqual([
      [100, 5],
      [200, 5],
    ]);
    expect(averaged.cells.find((c) => c.a === 0 && c.b === 5)?.scenarios).toEqual(['GE']);
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
    const rows = participantRows(doc, ratings);
    expect(rows.map((r) => r.status)).toEqual(['reliable', 'reliable', 'reliable', 'unreliable']);
    expect(rows[3]?.reason).toBe('|rho| = 0.400 <= 0.6');
    expect(rows[0]?.bias).toBeCloseTo(-0.3);
    expect(rows[0]?.ratings.B).toHaveLength(2);
    expect(rows[0]?.sessions).toBe(2);
  });

  it('reads old documents: no status means ρ decides, undefined ρ is not assessable', () => {
    expect(raterStatus({ rater_id: 'a', rho: null, reliable: false }, 0.6).status).toBe('not_assessable');
    expect(raterStatus({ rater_id: 'a', rho: 0.5, reliable: false }, 0.6)).toEqual({ status: 'unreliable', reason: '|ρ| = 0.500 ≤ 0.6' });
    const pilot = participantRows(oneRaterPerGameFixture().doc, null);
    expect(pilot.map((r) => r.status)).toEqual(['not_assessable', 'not_assessable']);
  });
});
