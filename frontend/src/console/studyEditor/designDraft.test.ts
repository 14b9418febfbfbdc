import { describe, expect, it } from 'vitest';

import { designRequest, emptyDesign, parseLevels } from './designDraft';
import { FACTOR_CATALOG } from './factorCatalog.fixture';

const factors = FACTOR_CATALOG.factors;
const found = factors.find((f) => f.key === 'loss_pct');
if (!found) throw new Error('the registry has no loss_pct');
const loss = found;

describe('parseLevels', () => {
  it('reads comma-separated numbers within the limits', () => {
    expect(parseLevels('0, 1,3', loss)).toEqual({ levels: [0, 1, 3] });
    expect(parseLevels('', loss)).toEqual({ error: 'Give the levels of loss, separated by commas (e.g. 0, 100, 200)' });
    expect(parseLevels('0,,3', loss)).toEqual({ error: 'A level is missing between two commas' });
    expect(parseLevels('0, x', loss)).toEqual({ error: '“x” is not a number' });
    expect(parseLevels('0, 101', loss)).toEqual({ error: 'Loss must be ≤ 100 % (level 101)' });
    expect(parseLevels('1, 1', loss)).toEqual({ error: 'Level 1 is given twice' });
    const distribution = factors.find((f) => f.key === 'jitter_distribution');
    if (!distribution) throw new Error('the registry has no jitter_distribution');
    expect(parseLevels('normal, pareto', distribution)).toEqual({ levels: ['normal', 'pareto'] });
    expect(parseLevels('normal, uniform', distribution)).toEqual({ error: '“uniform” is not one of normal, pareto, paretonormal' });
  });
});

describe('designRequest', () => {
  it('builds the 3 × 3 grid with 10 ms jitter each way', () => {
    const draft = emptyDesign(factors);
    draft.rows = [
      { id: 1, key: 'delay_ms', direction: 'downstream', levels: '0, 100, 200' },
      { id: 2, key: 'loss_pct', direction: 'upstream', levels: '0, 1, 3' },
    ];
    draft.base.downstream.values.jitter_ms = '10';
    draft.base.upstream.values.jitter_ms = '10';
    const { request, errors } = designRequest(draft, factors, true);
    expect(errors).toEqual({});
    expect(request?.kind).toBe('grid');
    expect(request?.dry_run).toBe(true);
    expect(request?.factors).toEqual([
      { key: 'delay_ms', direction: 'downstream', levels: [0, 100, 200] },
      { key: 'loss_pct', direction: 'upstream', levels: [0, 1, 3] },
    ]);
    expect(request?.base.downstream).toMatchObject({ jitter_ms: 10, delay_ms: 0, gilbert_elliott: null });
    expect(request?.base.upstream).toMatchObject({ jitter_ms: 10 });
  });

  it('refuses a factor varied twice in one direction, bad levels and a bad base value', () => {
    const draft = emptyDesign(factors);
    draft.rows = [
      { id: 1, key: 'delay_ms', direction: 'both', levels: '0, 100' },
      { id: 2, key: 'delay_ms', direction: 'upstream', levels: '0, 70000' },
    ];
    draft.base.upstream.values.loss_pct = '120';
    const { request, errors } = designRequest(draft, factors, false);
    expect(request).toBeNull();
    expect(errors).toEqual({
      'rows.1.key': 'Delay is already varied in this direction',
      'rows.1.levels': 'Delay must be ≤ 60000 ms (level 70000)',
      'upstream.loss_pct': 'Loss must be ≤ 100 %',
    });
  });
});
