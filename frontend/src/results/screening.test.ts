import { describe, expect, it } from 'vitest';

import type { AnalysisDoc } from './analysisTypes';
import { qcVerdictText, ruleSummaries, screeningRows, verdictText } from './screening';
import { testDoc } from './testDoc';

/** The pilot's screening: P.913 not assessable (no condition with 4 raters), short sessions. */
function pilotLike(): AnalysisDoc {
  const doc = testDoc();
  doc.reliability.intra = [
    { rater_id: 'R1', rho: -0.95, reliable: false, status: 'not_assessable', reason: 'p = 0.2302 > 0.01', n_ratings: 4, p_random_pass: 0.2302 },
    { rater_id: 'R2', rho: -0.45, reliable: false, status: 'unreliable', reason: 'rho = -0.45 >= -0.6', n_ratings: 4, p_random_pass: 0.2302 },
  ];
  doc.reliability.screening = {
    p913: {
      rule: 'r1', source: 'ITU-T P.913', r1: 'pearson', r2: 'spearman', r2_threshold: 0.8, passes: 0, rejected_per_pass: [], threshold: 0.75,
      per_rater: [
        { rater_id: 'R1', r: null, r1: null, r2: null, status: 'not_assessable', reason: 'no condition rated by >= 4 raters', rejected_in_pass: null },
        { rater_id: 'R2', r: null, r1: null, r2: null, status: 'not_assessable', reason: 'no condition rated by >= 4 raters', rejected_in_pass: null },
      ],
      rejected: [], not_assessable: ['R1', 'R2'],
      status: 'not_assessable', reason: '0 of 24 conditions are rated by >= 4 distinct raters',
      min_raters_per_condition: 4, min_conditions_per_rater: 4, n_conditions_used: 0, n_conditions_total: 24,
    },
    straight_lining: {
      min_ratings_per_session: 5, sessions: [], rejected: [],
      per_rater: [{ rater_id: 'R1', status: 'not_assessable', reason: 'no session with >= 5 ratings' }],
    },
  };
  return doc;
}

describe('the screening rules side by side', () => {
  it('keeps each rule’s verdict and reason per rater; a rule that did not screen a rater says so', () => {
    const rows = screeningRows(pilotLike());
    expect(rows.map((r) => [r.rater, r.intra.status, r.p913.status, r.straight.status])).toEqual([
      ['R1', 'not_assessable', 'not_assessable', 'not_assessable'],
      ['R2', 'unreliable', 'not_assessable', 'unscreened'],
    ]);
    expect(verdictText(rows[0]?.intra ?? { status: 'unscreened', reason: '' })).toBe('not assessable: p = 0.2302 > 0.01');
    expect(verdictText({ status: 'unscreened', reason: '' })).toBe('not screened');
  });

  it('says what each rule needs and whether P.913 could judge, with the conditions it used', () => {
    const [intra, p913, straight] = ruleSummaries(pilotLike());
    expect(intra?.needs).toBe('per scenario group ≥ 4 ratings over ≥ 3 levels; reliable when ρ < −0.6 and a random rater would pass with p ≤ 0.01');
    expect(intra?.counts).toEqual({ reliable: 0, unreliable: 1, not_assessable: 1, unscreened: 0 });
    expect(p913?.assessable).toEqual({ ok: false, reason: '0 of 24 conditions are rated by >= 4 distinct raters' });
    expect(p913?.evidence).toBe('0 of 24 conditions used (rated by ≥ 4 raters)');
    expect(p913?.counts.reliable).toBe(0);
    expect(straight?.evidence).toBe('only sessions with ≥ 5 ratings are judged');
  });

  it('reads an older document: |ρ| rule, statuses from rater_status, nothing said about assessability', () => {
    const doc = testDoc();
    doc.reliability.rater_status = [{ rater_id: 'P1', p913: 'unreliable', straight_lining: 'reliable' }];
    const rows = screeningRows(doc);
    expect(rows.find((r) => r.rater === 'P1')).toMatchObject({ intra: { status: 'unreliable' }, p913: { status: 'unreliable', reason: '' } });
    // P4 has no ρ: not assessable, never reliable
    expect(rows.find((r) => r.rater === 'P4')?.intra.status).toBe('not_assessable');
    const [intra, p913] = ruleSummaries(doc, rows);
    expect(intra?.needs).toBe('a scenario group with ≥ 2 levels; reliable when |ρ| > 0.6');
    expect(p913?.assessable).toBeNull();
    expect(p913?.evidence).toBeNull();
  });
});

describe('the quality-control checks (ITU-T P.808, issue 35)', () => {
  it('lists a rater failing a trap with the reason, and adds the rule only where the study asked checks', () => {
    const doc = pilotLike();
    expect(ruleSummaries(doc).map((r) => r.rule)).not.toContain('quality_control');
    const screening = doc.reliability.screening;
    if (!screening) throw new Error('pilotLike() sets the screening');
    screening.quality_control = {
      rule: 'fail: ...', source: 'ITU-T P.808', applied: true, excluded: false, n_traps: 2, n_hidden_references: 0, failed: ['R2'],
      per_rater: [
        { rater_id: 'R1', status: 'reliable', failed: false, reason: 'every trap answered as instructed', reasons: [], n_traps: 1, n_hidden_references: 0 },
        { rater_id: 'R2', status: 'unreliable', failed: true, reason: 'trap 1: asked for 2 (Poor), answered 5', reasons: ['trap 1: asked for 2 (Poor), answered 5'], n_traps: 1, n_hidden_references: 0 },
      ],
    };
    const rows = screeningRows(doc);
    expect(rows.map((r) => qcVerdictText(r.qc))).toEqual(['passed', 'failed: trap 1: asked for 2 (Poor), answered 5']);
    const qc = ruleSummaries(doc, rows).find((r) => r.rule === 'quality_control');
    expect(qc?.counts).toEqual({ reliable: 1, unreliable: 1, not_assessable: 0, unscreened: 0 });
    expect(qc?.evidence).toBe('failed raters are flagged, not excluded');
  });
});
