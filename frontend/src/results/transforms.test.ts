import { describe, expect, it } from 'vitest';

import { testDoc } from './testDoc';
import {
  gameNames,
  interRater,
  layoutTree,
  mosOverFactor,
  mosPerScenario,
  ratingCdfs,
  ratingPairs,
  scenarioCodes,
  sosHypothesis,
  sosPoints,
  thresholdRows,
  toTidyRatings,
  weightRows,
} from './transforms';
import { intraRaterCdf } from './screening';

describe('games and scenarios', () => {
  it('lists the games in the study order, never the pooled "all"', () => {
    expect(gameNames(testDoc(), ['rpg', 'racing', 'soccer'])).toEqual(['rpg', 'racing']);
    expect(gameNames(testDoc())).toEqual(['racing', 'rpg']);
  });

  it('orders scenarios as the study does, unknown ones last', () => {
    expect(scenarioCodes(testDoc(), ['B', 'D1', 'L1'])).toEqual(['B', 'D1', 'L1', 'A1', 'A2']);
  });
});

describe('fig. 4.5 mosPerScenario', () => {
  it('gives one value per scenario and game, null where a condition is missing', () => {
    const data = mosPerScenario(testDoc(), ['racing', 'rpg'], ['B', 'D1', 'L1', 'M1']);
    expect(data.scenarios).toEqual(['B', 'D1', 'L1', 'M1']);
    expect(data.series.map((s) => s.game)).toEqual(['racing', 'rpg']);
    expect(data.series[0]?.mos).toEqual([4.5, 3, null, null]);
    expect(data.series[1]?.mos).toEqual([4, 2, 3, null]);
    expect(data.series[1]?.low).toEqual([3.7, 1.7, 2.7, null]);
    expect(data.series[1]?.n).toEqual([2, 2, 2, 0]);
  });
});

describe('figs. 4.6/4.7 mosOverFactor', () => {
  it('orders the levels of the scenario group and pairs all with reliable raters', () => {
    const doc = testDoc();
    const reliable = testDoc();
    reliable.conditions = reliable.conditions.map((c) => ({ ...c, mos: c.mos === null ? null : c.mos + 0.1 }));
    const data = mosOverFactor({ all: doc, reliable }, 'delay_only', ['racing']);
    expect(data.levels).toEqual([
      { scenario: 'B', x: 0 },
      { scenario: 'D1', x: 80 },
    ]);
    expect(data.series.map((s) => `${s.game}/${s.group}`)).toEqual(['racing/all', 'racing/reliable']);
    expect(data.series[0]?.points.map((p) => p.mos)).toEqual([4.5, 3]);
    expect(data.series[1]?.points[0]?.mos).toBeCloseTo(4.6);
  });

  it('leaves out the reliable series while that analysis is missing', () => {
    const data = mosOverFactor({ all: testDoc(), reliable: null }, 'loss_only', ['racing', 'rpg']);
    expect(data.series).toHaveLength(2);
    expect(data.series[0]?.points.map((p) => [p.x, p.mos])).toEqual([
      [0, 4.5],
      [0.3, null],
    ]);
  });
});

describe('fig. 4.8 ratingPairs', () => {
  const ratings = toTidyRatings([
    { rater_id: 'P1', session_id: 'S1', game: 'racing', scenario: 'M1', rating: '2' },
    { rater_id: 'P1', session_id: 'S1', game: 'racing', scenario: 'M2', rating: '1' },
    { rater_id: 'P2', session_id: 'S2', game: 'racing', scenario: 'M1', rating: '3' },
    { rater_id: 'P2', session_id: 'S2', game: 'racing', scenario: 'M2', rating: '3' },
    { rater_id: 'P3', session_id: 'S3', game: 'racing', scenario: 'M1', rating: '2' },
    { rater_id: 'P3', session_id: 'S3', game: 'racing', scenario: 'M2', rating: '1' },
    { rater_id: 'P4', session_id: 'S4', game: 'racing', scenario: 'M1', rating: '4' }, // no M2: left out
    { rater_id: 'P5', session_id: 'S5', game: 'rpg', scenario: 'M1', rating: '1' },
    { rater_id: 'P5', session_id: 'S5', game: 'rpg', scenario: 'M2', rating: '5' },
  ]);

  it('counts each session once at (M1, M2) and splits the diagonal', () => {
    const [racing, rpg] = ratingPairs(ratings, ['racing', 'rpg']);
    expect(racing?.sessions).toBe(3);
    expect(racing?.counts[0]?.[1]).toBe(2); // M2 = 1, M1 = 2
    expect(racing?.counts[2]?.[2]).toBe(1);
    expect(racing?.m1Better).toBeCloseTo(2 / 3);
    expect(racing?.equal).toBeCloseTo(1 / 3);
    expect(rpg?.counts[4]?.[0]).toBe(1);
    expect(rpg?.m2Better).toBe(1);
  });

  it('keeps only the given raters', () => {
    const [racing] = ratingPairs(ratings, ['racing'], 'M1', 'M2', 5, new Set(['P2']));
    expect(racing?.sessions).toBe(1);
  });
});

describe('fig. 4.9 ratingCdfs', () => {
  it('accumulates the distribution into P(rating <= k)', () => {
    const series = ratingCdfs(testDoc(), ['racing']);
    expect(series.map((s) => s.scenario)).toEqual(['A1', 'A2']);
    expect(series[0]?.cdf).toEqual([0, 0, 0.5, 0.5, 1]);
    expect(series[1]?.cdf).toEqual([0.5, 1, 1, 1, 1]);
    expect(series[1]?.n).toBe(2);
  });
});

describe('fig. 4.2 intraRaterCdf', () => {
  it('sorts |ρ|, skips raters without ρ and reports the share above the cut-off', () => {
    const data = intraRaterCdf(testDoc());
    expect(data.points.map((p) => p.rater)).toEqual(['P1', 'P3', 'P2']);
    expect(data.points.map((p) => p.p)).toEqual([1 / 3, 2 / 3, 1]);
    expect(data.shareReliable).toBeCloseTo(2 / 3);
    expect(data.excluded).toBe(1);
    expect(data.cutoff).toBe(0.6);
    expect(data.signed).toBe(false);
  });

  it('draws signed ρ under the issue-31 rule and counts only the document’s "reliable" verdicts', () => {
    const doc = testDoc();
    doc.reliability.intra = [
      // ρ = +0.9: the ratings rise with the impairment (|ρ| would have called it reliable)
      { rater_id: 'R1', rho: 0.9, reliable: false, status: 'unreliable', reason: 'ratings rise with the impairment', n_ratings: 8, p_random_pass: 0.001 },
      // ρ = −0.95 from 4 ratings: a random rater passes with p = 0.23
      { rater_id: 'R2', rho: -0.95, reliable: false, status: 'not_assessable', reason: 'p = 0.2302 > 0.01', n_ratings: 4, p_random_pass: 0.2302 },
      { rater_id: 'R3', rho: -0.8, reliable: true, status: 'reliable', reason: 'rho = -0.8 < -0.6', n_ratings: 12, p_random_pass: 0.004 },
    ];
    const data = intraRaterCdf(doc);
    expect(data.signed).toBe(true);
    expect(data.points.map((p) => [p.rater, p.x])).toEqual([
      ['R2', -0.95],
      ['R3', -0.8],
      ['R1', 0.9],
    ]);
    expect(data.shareReliable).toBeCloseTo(1 / 3);
    expect(data.points.map((p) => p.status)).toEqual(['not_assessable', 'reliable', 'unreliable']);
    expect(data.points[0]).toMatchObject({ n_ratings: 4, p_random_pass: 0.2302, reason: 'p = 0.2302 > 0.01' });
  });
});

describe('fig. 4.3 interRater', () => {
  it('keeps the chosen games and the pooled one', () => {
    const data = interRater(testDoc(), ['racing']);
    expect(data.groups).toEqual(['delay_only', 'loss_only']);
    expect(data.rows.map((r) => `${r.game}/${r.group}`)).toEqual(['racing/delay_only', 'all/delay_only', 'racing/loss_only']);
    expect(data.rows[1]).toMatchObject({ median: 0.6, q25: 0.5, q75: 0.7 });
  });
});

describe('fig. 4.4 SOS hypothesis', () => {
  it('is zero at the ends of the scale and maximal at MOS 3', () => {
    expect(sosHypothesis(0.25, 1)).toBe(0);
    expect(sosHypothesis(0.25, 5)).toBe(0);
    expect(sosHypothesis(0.25, 3)).toBeCloseTo(1);
  });

  it('uses the per-game a for one game and the overall a for several', () => {
    expect(sosPoints(testDoc(), ['racing']).a).toBe(0.3);
    const both = sosPoints(testDoc(), ['racing', 'rpg']);
    expect(both.a).toBe(0.25);
    expect(both.points).toHaveLength(9); // racing L1 has no MOS
    expect(both.curve[0]).toEqual({ mos: 1, sos: 0 });
  });
});

describe('table 4.2 weightRows', () => {
  it('sorts by the RapidMiner weight and names the factors', () => {
    const rows = weightRows(testDoc());
    expect(rows.map((r) => r.label)).toEqual(['Downstream packet loss', 'Downstream delay', 'Type of game (pace)']);
    expect(rows[0]).toMatchObject({ rapidminer: 1, weka: 0.15 });
  });
});

describe('fig. 4.10 layoutTree', () => {
  it('places leaves in consecutive slots and parents above the middle of their children', () => {
    const root = testDoc().tree.root;
    if (!root) throw new Error('the test document has a tree');
    const { nodes, width, depth } = layoutTree(root);
    expect(nodes).toHaveLength(5);
    expect(width).toBe(3);
    expect(depth).toBe(2);
    const byId = Object.fromEntries(nodes.map((n) => [n.id, n]));
    expect(byId.nLL?.x).toBe(0);
    expect(byId.nLR?.x).toBe(1);
    expect(byId.nR?.x).toBe(2);
    expect(byId.nL?.x).toBe(0.5);
    expect(byId.n?.x).toBe(1.25);
    expect(byId.nLR?.edge).toBe('game_pace = fast');
    expect(nodes.filter((n) => n.leaf)).toHaveLength(3);
  });
});

describe('thresholdRows', () => {
  it('gives pace × direction × KPI rows, fast before medium, optionally one pace', () => {
    const rows = thresholdRows(testDoc());
    expect(rows).toHaveLength(2 * 3 * 2);
    expect(rows[0]).toMatchObject({ pace: 'fast', direction: 'downstream', quantity: 'delay', tree: 130, bracket: '120–180', ci95: '140–160.5' });
    expect(rows[1]).toMatchObject({ quantity: 'loss', tree: null, status: 'acceptable_at_all_tested_levels', ci95: '' });
    expect(thresholdRows(testDoc(), ['medium']).every((r) => r.pace === 'medium')).toBe(true);
  });
});
