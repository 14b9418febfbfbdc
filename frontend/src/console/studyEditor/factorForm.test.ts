import { describe, expect, it } from 'vitest';

import { ApiError } from '../../api';
import type { FactorInfo } from '../../api';
import { FACTOR_CATALOG } from './factorCatalog.fixture';
import { checkValue, describeDirection, draftOf, groupFactors, profileOf, serverErrors } from './factorForm';

const factors = FACTOR_CATALOG.factors;
const factor = (key: string): FactorInfo => {
  const f = factors.find((x) => x.key === key);
  if (!f) throw new Error(key);
  return f;
};

describe('groupFactors', () => {
  it('shows the KPI factors, groups the Gilbert–Elliott parts and puts the rest behind "more"', () => {
    const g = groupFactors(factors);
    expect(g.main.map((f) => f.key)).toEqual(['delay_ms', 'jitter_ms', 'loss_pct']);
    expect(g.burst.map((f) => f.key)).toEqual(['ge_p_pct', 'ge_r_pct', 'ge_loss_bad_pct', 'ge_loss_good_pct']);
    expect(g.more.map((f) => f.key)).toContain('rate_kbit');
    expect(g.main.length + g.burst.length + g.more.length).toBe(factors.length);
  });
});

describe('checkValue', () => {
  it('names the limit of the registry', () => {
    expect(checkValue(factor('loss_pct'), '150')).toBe('Loss must be ≤ 100 %');
    expect(checkValue(factor('delay_ms'), '-1')).toBe('Delay must be ≥ 0 ms');
    expect(checkValue(factor('delay_ms'), '60001')).toBe('Delay must be ≤ 60000 ms');
    expect(checkValue(factor('loss_pct'), '100')).toBeNull();
    expect(checkValue(factor('loss_pct'), 'abc')).toBe('Loss must be a number');
    expect(checkValue(factor('loss_pct'), ' ')).toMatch(/needs a value/);
    expect(checkValue(factor('jitter_distribution'), 'pareto')).toBeNull();
    expect(checkValue(factor('jitter_distribution'), 'uniform')).toMatch(/must be one of normal, pareto, paretonormal/);
  });
});

describe('profileOf / draftOf', () => {
  it('round-trips a profile with burst loss and sends every field', () => {
    const stored = { delay_ms: 100, jitter_ms: 10, gilbert_elliott: { p_pct: 5, r_pct: 50, loss_bad_pct: 100, loss_good_pct: 0 } };
    const draft = draftOf(factors, stored);
    expect(draft.burst).toBe(true);
    expect(draft.values.ge_p_pct).toBe('5');
    const { profile, errors } = profileOf(factors, draft);
    expect(errors).toEqual({});
    expect(profile).toMatchObject({ ...stored, loss_pct: 0, rate_kbit: 0, jitter_distribution: 'normal' });
  });

  it('sends gilbert_elliott null when burst loss is off, whatever its fields hold', () => {
    const draft = draftOf(factors);
    draft.values.ge_p_pct = '500';
    expect(profileOf(factors, draft).profile?.gilbert_elliott).toBeNull();
    const on = profileOf(factors, { ...draft, burst: true });
    expect(on.profile).toBeNull();
    expect(on.errors).toEqual({ ge_p_pct: 'Burst loss: p (good→bad) must be ≤ 100 %' });
  });
});

describe('serverErrors', () => {
  it('maps the profile check lines to their fields', () => {
    const error = new ApiError('HTTP 400', 400, null, {
      profile: ['downstream.loss_pct: 150 is greater than the maximum of 100', 'upstream.gilbert_elliott.p_pct: 120 is greater than the maximum of 100'],
    });
    expect(serverErrors(error)).toEqual({
      'downstream.loss_pct': '150 is greater than the maximum of 100',
      'upstream.ge_p_pct': '120 is greater than the maximum of 100',
    });
  });

  it('maps nested DRF errors, strips an outer key and keeps the rest general', () => {
    const error = new ApiError('HTTP 400', 400, null, {
      base: { upstream: { gilbert_elliott: { r_pct: ['upstream.gilbert_elliott.r_pct: 120 is greater than the maximum of 100'] } } },
      code: ['taken'],
      factors: [{}, { levels: ['give at least one level'] }],
    });
    expect(serverErrors(error, 'base')).toEqual({
      'upstream.ge_r_pct': '120 is greater than the maximum of 100',
      code: 'taken',
      'rows.1.levels': 'give at least one level',
    });
    const detail = new ApiError('HTTP 400', 400, 'The design makes 125 scenarios', { detail: 'The design makes 125 scenarios' });
    expect(serverErrors(detail)).toEqual({ '': 'The design makes 125 scenarios' });
    const level = 'factors[1].levels[2]: 70000 is greater than the maximum of 60000 ms (delay_ms)';
    expect(serverErrors(new ApiError('HTTP 400', 400, level, { detail: level }))).toEqual({
      'rows.1.levels': '70000 is greater than the maximum of 60000 ms (delay_ms)',
    });
  });
});

describe('describeDirection', () => {
  it('lists what differs from neutral', () => {
    expect(describeDirection(factors, { delay_ms: 0, jitter_ms: 0, loss_pct: 0 })).toBe('none');
    expect(describeDirection(factors, { delay_ms: 100, jitter_ms: 10, gilbert_elliott: { p_pct: 5, r_pct: 50, loss_bad_pct: 100, loss_good_pct: 0 } })).toBe(
      'Delay 100 ms, Jitter 10 ms, Burst loss: p (good→bad) 5 %, Burst loss: r (bad→good) 50 %, Burst loss: loss in bad state 100 %, Burst loss: loss in good state 0 %',
    );
  });
});

describe('serverErrors on a direction-level refusal', () => {
  it('routes the lines DRF puts under a direction to their field', () => {
    const error = new ApiError('HTTP 400', 400, null, {
      downstream: ['downstream.gilbert_elliott: netem applies one loss model per direction', 'downstream: something general'],
    });
    expect(serverErrors(error)).toEqual({
      'downstream.gilbert_elliott': 'netem applies one loss model per direction',
      downstream: 'something general',
    });
  });
});

describe('serverErrors on the backend’s own bodies', () => {
  // Captured from qoelab.studies.serializers (DirectionSerializer, DesignSerializer) on bad input.
  it('puts each refusal at its field', () => {
    const scenario = new ApiError('HTTP 400', 400, null, {
      upstream: { gilbert_elliott: { p_pct: ['upstream.gilbert_elliott.p_pct: 500 is greater than the maximum of 100'] } },
      downstream: {
        gilbert_elliott: ['downstream.gilbert_elliott: downstream (server→client): netem applies one loss model per direction'],
        reorder_pct: ['downstream.reorder_pct: downstream (server→client): reordering needs delay_ms > 0'],
      },
    });
    expect(serverErrors(scenario)).toEqual({
      'upstream.ge_p_pct': '500 is greater than the maximum of 100',
      'downstream.gilbert_elliott': 'downstream (server→client): netem applies one loss model per direction',
      'downstream.reorder_pct': 'downstream (server→client): reordering needs delay_ms > 0',
    });
    const design = new ApiError('HTTP 400', 400, null, {
      factors: { '0': { levels: ['Ensure this field has at least 1 elements.'] } },
      base: { upstream: { loss_pct: ['upstream.loss_pct: 120 is greater than the maximum of 100'] } },
    });
    expect(serverErrors(design, 'base')).toEqual({
      'rows.0.levels': 'Ensure this field has at least 1 elements.',
      'upstream.loss_pct': '120 is greater than the maximum of 100',
    });
  });
});
