import { describe, expect, it } from 'vitest';

import type { DesignScenario } from '../../api';
import { FACTOR_CATALOG } from './factorCatalog.fixture';
import { designGroups, planningHint, planningText, ratersForInterval, sosSd, tCdf, tQuantile } from './planning';

const factors = FACTOR_CATALOG.factors;

/** A scenario with delay and loss per direction (every other factor neutral). */
function scenario(code: string, ds: [number, number], us: [number, number]): DesignScenario {
  return {
    code,
    label: code,
    is_baseline: ds[0] === 0 && ds[1] === 0 && us[0] === 0 && us[1] === 0,
    downstream: { delay_ms: ds[0], loss_pct: ds[1] },
    upstream: { delay_ms: us[0], loss_pct: us[1] },
  };
}

const grid = (delays: number[], losses: number[], both: boolean): DesignScenario[] =>
  delays.flatMap((d) => losses.map((l) => scenario(`D${String(d)}L${String(l)}`, [d, both ? l : 0], [both ? d : 0, l])));

describe('the Student t quantile', () => {
  it('equals scipy.stats.t.ppf(0.975, df)', () => {
    // scipy 1.x: t.ppf(0.975, df) for df = 1, 2, 3, 5, 10, 17, 30, 100, 1000
    const scipy: [number, number][] = [
      [1, 12.706204736174694],
      [2, 4.302652729749462],
      [3, 3.1824463052837078],
      [5, 2.5705818356363146],
      [10, 2.228138851986274],
      [17, 2.1098155778333156],
      [30, 2.0422724563012378],
      [100, 1.9839715185235518],
      [1000, 1.9623390808264083],
    ];
    for (const [df, t] of scipy) expect(tQuantile(0.975, df)).toBeCloseTo(t, 8);
  });

  it('has the closed-form CDF for one and two degrees of freedom', () => {
    // df = 1 (Cauchy): ½ + atan(t)/π; df = 2: ½ + t / (2·√(2 + t²)).
    for (const t of [-3, -0.5, 0, 0.7, 2, 10]) {
      expect(tCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 12);
      expect(tCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 12);
    }
  });
});

describe('raters per condition for a MOS interval of ±0.5', () => {
  it('equals qoe_analysis.evidence.planning.raters_for_interval', () => {
    // raters_for_interval(sd) for these sd (Python, scipy's t.ppf).
    const python: [number, number][] = [
      [0.25, 4],
      [0.5, 7],
      [0.8, 13],
      [1.0, 18],
      [1.2, 25],
      [1.5, 38],
      [2.0, 64],
      [3.0, 141],
    ];
    for (const [sd, n] of python) expect(ratersForInterval(sd)).toBe(n);
    expect(ratersForInterval(0)).toBe(2);
    expect(() => ratersForInterval(Number.NaN)).toThrow('sd must be');
  });

  it('is 18 by hand for sd = 1: t(0.975, 17)/√18 = 0.4973 ≤ 0.5 < t(0.975, 16)/√17 = 0.5142', () => {
    expect(tQuantile(0.975, 17) / Math.sqrt(18)).toBeCloseTo(0.4973, 4);
    expect(tQuantile(0.975, 16) / Math.sqrt(17)).toBeCloseTo(0.5142, 4);
  });

  it('assumes the SOS prior at mid-scale: a quarter of the range (sos_sd(0.25, L, H))', () => {
    expect(sosSd(0.25, 1, 5)).toBe(1);
    expect(sosSd(0.25, 0, 6)).toBe(1.5); // P.809's 0..6: 38 raters
    expect(planningHint(grid([0, 100], [0, 1], true), factors, 0, 6).ratersForInterval).toBe(38);
  });
});

describe('the intra-rater groups of a design (as scenario_groups finds them)', () => {
  it('finds delay alone over 4 levels in the pilot grid, both directions the same', () => {
    // Python: scenario_groups → delay_only (4 scenarios, 4 levels), loss_only (3, 3).
    const pilot = grid([0, 50, 100, 200], [0, 1, 3], true);
    expect(designGroups(pilot, factors)).toEqual([
      { label: 'Delay', ratings: 4, levels: 4 },
      { label: 'Loss', ratings: 3, levels: 3 },
    ]);
    const hint = planningHint(pilot, factors, 1, 5);
    expect(hint.intraGroup).toEqual({ label: 'Delay', ratings: 4, levels: 4 });
    expect(planningText(hint)).toEqual([
      "A 95 % MOS interval of ±0.5 per scenario and game needs 18 raters per game (each rates every scenario once; SD assumed 1, a quarter of the scale's range: the SOS hypothesis at mid-scale with a = 0.25).",
      'P.913 screening needs ≥ 4 raters per game; with fewer it is “not assessable”.',
      'The intra-rater rule can judge each rater: the design varies delay alone over 4 scenarios with 4 levels (it needs a one-factor group of ≥ 4 ratings over ≥ 3 levels per session).',
    ]);
  });

  it('says a 3 × 3 grid has no group the rule can count', () => {
    // Python: delay_only (3, 3), loss_only (3, 3): both below 4 ratings.
    const hint = planningHint(grid([0, 100, 200], [0, 1, 3], false), factors, 1, 5);
    expect(hint.groups).toEqual([
      { label: 'Delay', ratings: 3, levels: 3 },
      { label: 'Loss', ratings: 3, levels: 3 },
    ]);
    expect(hint.intraGroup).toBeNull();
    expect(planningText(hint)[2]).toContain('too small here: delay alone (3 scenarios, 3 levels), loss alone (3 scenarios, 3 levels)');
  });

  it('counts the baseline into each factor of a one-at-a-time design', () => {
    // Python: baseline + delay 50/100/200 + loss 1/3 → delay_only (4, 4), loss_only (3, 3).
    const oneAtATime = [scenario('B', [0, 0], [0, 0]), ...[50, 100, 200].map((d) => scenario(`D${String(d)}`, [d, 0], [0, 0])), ...[1, 3].map((l) => scenario(`L${String(l)}`, [0, 0], [0, l]))];
    expect(designGroups(oneAtATime, factors)).toEqual([
      { label: 'Delay', ratings: 4, levels: 4 },
      { label: 'Loss', ratings: 3, levels: 3 },
    ]);
  });

  it('needs 4 scenarios for P.913 and says so', () => {
    const hint = planningHint(grid([0, 100], [0], false), factors, 1, 5);
    expect(hint.enoughConditions).toBe(false);
    expect(planningText(hint)[1]).toBe('P.913 screening needs ≥ 4 raters per game and ≥ 4 scenarios (this design has fewer); with fewer it is “not assessable”.');
    expect(planningText(hint)[2]).toContain('no factor is varied alone over 3 or more scenarios here');
  });
});
