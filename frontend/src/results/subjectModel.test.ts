import { describe, expect, it } from 'vitest';

import { conditionsLeftOut, p913Statuses, qualityRows, raterPoints, raterTooltip, subjectModelReason } from './subjectModel';
import { subjectModelDoc } from './subjectModelFixture';

describe('raterPoints', () => {
  it('keeps the fitted raters with their P.913 status and lists the others with the reason', () => {
    const { points, leftOut, screened } = raterPoints(subjectModelDoc());
    expect(screened).toBe(true);
    expect(points.map((p) => p.rater)).toEqual(['P02', 'P03', 'P10', 'P13', 'P16', 'P17', 'P21', 'P22', 'P37', 'P48']);
    expect(points.filter((p) => p.p913 === 'unreliable').map((p) => p.rater)).toEqual(['P16', 'P37']);
    expect(points.find((p) => p.rater === 'P48')?.p913).toBe('not_assessable');
    expect(leftOut.map((l) => l.id)).toEqual(['P06', 'P25', 'P99']);
    expect(leftOut[2]?.reason).toMatch(/^rated one condition only/);
    // the model's convention: the fitted raters' biases have mean zero
    expect(points.reduce((s, p) => s + p.bias, 0) / points.length).toBeCloseTo(0, 9);
  });

  it('reads the status from rater_status in documents without the P.913 table, else marks it unscreened', () => {
    const doc = subjectModelDoc();
    const screening = doc.reliability.screening;
    if (screening) delete screening.p913;
    expect(p913Statuses(doc).get('P16')).toEqual({ status: 'unreliable', reason: '' });
    doc.reliability.rater_status = [];
    const { points, screened } = raterPoints(doc);
    expect(screened).toBe(false);
    expect(new Set(points.map((p) => p.p913))).toEqual(new Set(['unscreened']));
  });

  it('does not count a rater of another design block as left out', () => {
    const doc = subjectModelDoc();
    const model = doc.subject_model;
    if (!model) throw new Error('fixture without subject model');
    model.not_identifiable = [{ kind: 'disconnected', reason: 'no shared rater', raters: ['P02'], conditions: [] }];
    model.raters = model.raters.map((r) => (r.rater_id === 'P02' ? { ...r, block: 1 } : r));
    const { points, leftOut } = raterPoints(doc);
    expect(points.find((p) => p.rater === 'P02')?.block).toBe(1);
    expect(leftOut.map((l) => l.reason)).toEqual(['not fitted', 'not fitted', 'not fitted']);
  });
});

describe('raterTooltip', () => {
  it('leaves out intervals the document does not have', () => {
    const lines = raterTooltip({ rater: 'R7', n: null, bias: -0.5, biasLow: null, biasHigh: null, inconsistency: 0.25, inconsistencyLow: null, inconsistencyHigh: null, block: 2, p913: 'unscreened', p913Reason: '' });
    expect(lines).toEqual(['Rater R7, design block 2', 'Bias -0.50', 'Inconsistency 0.25', 'no P.913 screening in this analysis']);
  });
});

describe('qualityRows', () => {
  it('joins ψ with the MOS and t-CI of the same scenario × game, in the given order', () => {
    const doc = subjectModelDoc();
    const rows = qualityRows(doc, ['soccer'], ['L2', 'B']);
    expect(rows.slice(0, 2).map((r) => r.scenario)).toEqual(['L2', 'B']);
    const b = rows[1];
    const cond = doc.conditions.find((c) => c.scenario === 'B' && c.game === 'soccer');
    const psi = doc.subject_model?.conditions?.find((c) => c.scenario === 'B');
    expect(b).toMatchObject({ game: 'soccer', n: 13, mos: cond?.mos, mosLow: cond?.ci95_low, mosHigh: cond?.ci95_high, quality: psi?.quality, qualityLow: psi?.ci95_low });
    // the pooled "all" condition of the document is not a condition of the model
    expect(rows.every((r) => r.game === 'soccer')).toBe(true);
    expect(rows).toHaveLength(10);
    // ψ's interval is ψ ± 1.95996 se (subject_model.py)
    expect(((b?.qualityHigh ?? 0) - (b?.qualityLow ?? 0)) / 2).toBeCloseTo(1.95996 * (b?.qualitySe ?? 0), 9);
  });

  it('names the conditions without ψ with the reason from not_identifiable', () => {
    const doc = subjectModelDoc();
    const model = doc.subject_model;
    if (!model?.conditions) throw new Error('fixture without conditions');
    model.conditions = model.conditions.map((c) => (c.scenario === 'M1' ? { ...c, quality: null, quality_se: null, ci95_low: null, ci95_high: null, block: -1 } : c));
    model.not_identifiable = [{ kind: 'no_fitted_rater', reason: 'only raters left out above rated these conditions', raters: [], conditions: ['M1 × soccer'] }];
    const rows = qualityRows(doc, ['soccer'], []);
    expect(conditionsLeftOut(doc, rows)).toEqual([{ id: 'M1 × soccer', reason: 'only raters left out above rated these conditions' }]);
  });
});

describe('subjectModelReason', () => {
  it('prefers the note, then the not_identifiable reasons (once each)', () => {
    const doc = subjectModelDoc();
    expect(subjectModelReason(doc)).toBe(doc.notes?.subject_model);
    delete doc.notes;
    expect(subjectModelReason(doc)).toBe(
      "not identifiable: rated one condition only: the rater's bias cannot be separated from the residual, the inconsistency estimate is 0 and the likelihood unbounded; the model reproduces these raters' ratings exactly: inconsistency 0 and likelihood unbounded",
    );
  });
});
