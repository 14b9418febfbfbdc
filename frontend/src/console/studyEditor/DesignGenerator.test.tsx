import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { DesignRequest, DesignResult, StudyDetail } from '../../api';
import { exampleStudy } from '../../test/fixtures';
import { jsonResponse } from '../../test/fetchMock';
import { withQueries } from '../../test/queries';
import { DesignGenerator, PREVIEW_DELAY_MS } from './DesignGenerator';
import { FACTOR_CATALOG } from './factorCatalog.fixture';

/** The server's grid, computed here the same way (codes are the test's, not the server's rule). */
function grid(request: DesignRequest): DesignResult {
  const [a, b] = request.factors;
  const scenarios: DesignResult['scenarios'] = [];
  for (const x of a?.levels ?? []) {
    for (const y of b?.levels ?? [0]) {
      const down = { ...request.base.downstream, [a?.key ?? '']: x };
      const up = { ...request.base.upstream, ...(b ? { [b.key]: y } : {}) };
      scenarios.push({ code: scenarios.length === 0 ? 'B' : `G${scenarios.length}`, label: `${x}/${y}`, is_baseline: scenarios.length === 0, downstream: down, upstream: up } as DesignResult['scenarios'][number]);
    }
  }
  return { count: scenarios.length, session_minutes: 5 + scenarios.length * 2, scenarios };
}

interface Call {
  url: string;
  body: DesignRequest;
}

function stubServer(answer: (body: DesignRequest) => { status: number; body: unknown }) {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      const body = JSON.parse(typeof init?.body === 'string' ? init.body : 'null') as DesignRequest;
      calls.push({ url, body });
      const a = answer(body);
      return Promise.resolve(jsonResponse(a.body, a.status, a.status === 400 ? 'Bad Request' : 'OK'));
    }),
  );
  return calls;
}

function renderGenerator(study: StudyDetail = exampleStudy) {
  const onApplied = vi.fn();
  render(withQueries(<DesignGenerator study={study} catalog={FACTOR_CATALOG} onApplied={onApplied} />));
  return { onApplied, region: screen.getByRole('region', { name: 'Design generator' }) };
}

function fillThreeByThree(region: HTMLElement) {
  const f1 = within(region).getByRole('group', { name: 'Factor 1' });
  fireEvent.change(within(f1).getByLabelText('Factor', { exact: true }), { target: { value: 'delay_ms' } });
  fireEvent.change(within(f1).getByLabelText('Direction'), { target: { value: 'downstream' } });
  fireEvent.change(within(f1).getByLabelText(/^Levels/), { target: { value: '0, 100, 200' } });
  fireEvent.click(within(region).getByRole('button', { name: 'Add factor' }));
  const f2 = within(region).getByRole('group', { name: 'Factor 2' });
  fireEvent.change(within(f2).getByLabelText('Factor', { exact: true }), { target: { value: 'loss_pct' } });
  fireEvent.change(within(f2).getByLabelText('Direction'), { target: { value: 'upstream' } });
  fireEvent.change(within(f2).getByLabelText(/^Levels/), { target: { value: '0, 1, 3' } });
  fireEvent.change(within(region).getByLabelText('Downstream Jitter (ms)'), { target: { value: '10' } });
  fireEvent.change(within(region).getByLabelText('Upstream Jitter (ms)'), { target: { value: '10' } });
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

// The machine runs CI lanes alongside: a preview waits out the debounce, then the mocked request.
describe('DesignGenerator', { timeout: 20_000 }, () => {
  it('previews the 3 × 3 grid: count, session length and the nine scenarios', async () => {
    const calls = stubServer((body) => ({ status: 200, body: grid(body) }));
    const { region } = renderGenerator();
    fillThreeByThree(region);
    const size = await within(region).findByTestId('design-preview-size', {}, { timeout: 8000 });
    await waitFor(() => {
      expect(size).toHaveTextContent('9 scenarios; one session takes about 23 min.');
    }, { timeout: 8000 });
    const table = within(region).getByRole('table', { name: /Preview/ });
    expect(within(table).getAllByRole('row')).toHaveLength(2 + 9);
    // The planning hint (ACR 1–5: SD 1, 18 raters); a 3 × 3 grid has no group of 4 ratings.
    const hint = within(within(region).getByTestId('design-planning')).getAllByRole('listitem');
    expect(hint).toHaveLength(3);
    expect(hint[0]).toHaveTextContent('needs 18 raters per game');
    expect(hint[1]).toHaveTextContent('P.913 screening needs ≥ 4 raters per game;');
    expect(hint[2]).toHaveTextContent('The intra-rater rule cannot judge any rater of this design');
    const last = calls.at(-1);
    expect(last?.url).toBe('/api/v1/studies/1/design/');
    expect(last?.body).toMatchObject({
      kind: 'grid',
      dry_run: true,
      factors: [
        { key: 'delay_ms', direction: 'downstream', levels: [0, 100, 200] },
        { key: 'loss_pct', direction: 'upstream', levels: [0, 1, 3] },
      ],
      base: { downstream: { jitter_ms: 10 }, upstream: { jitter_ms: 10 } },
    });
    expect(within(region).getByRole('button', { name: 'Apply design' })).toBeEnabled();
  });

  it('refuses bad levels in the form, with the limit, and asks the server nothing', async () => {
    // Fake clock: the debounce elapses when the test says so, not after some wall time.
    vi.useFakeTimers();
    const calls = stubServer(() => ({ status: 200, body: { count: 0, session_minutes: 0, scenarios: [] } }));
    const { region } = renderGenerator();
    const factor1 = within(region).getByRole('group', { name: 'Factor 1' });
    const levels = within(factor1).getByLabelText(/^Levels/);
    fireEvent.change(within(factor1).getByLabelText('Factor', { exact: true }), { target: { value: 'loss_pct' } });
    fireEvent.change(levels, { target: { value: '0, 150' } });
    expect(levels).toHaveAttribute('aria-invalid', 'true');
    expect(levels).toHaveAccessibleDescription(/Loss must be ≤ 100 % \(level 150\)/);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(PREVIEW_DELAY_MS);
    });
    expect(calls).toEqual([]);
    expect(within(region).getByRole('button', { name: 'Apply design' })).toBeDisabled();
    // The same wait does ask once the levels are valid: the silence above is the refusal's,
    // not a debounce still running.
    fireEvent.change(levels, { target: { value: '0, 1' } });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(PREVIEW_DELAY_MS);
    });
    expect(calls.map((c) => c.body.factors)).toEqual([[{ key: 'loss_pct', direction: 'downstream', levels: [0, 1] }]]);
  });

  it('shows the server refusal over the maximum and keeps Apply disabled', async () => {
    const detail = 'The design makes 125 scenarios; a study may have at most 100 (QOELAB_MAX_SCENARIOS).';
    stubServer(() => ({ status: 400, body: { detail } }));
    const { region } = renderGenerator();
    fireEvent.change(within(region).getByLabelText(/^Levels/), { target: { value: '0, 1, 2, 3, 4' } });
    const alert = await within(within(region).getByTestId('design-preview')).findByRole('alert', {}, { timeout: 8000 });
    expect(alert).toHaveTextContent(detail);
    expect(within(region).getByRole('button', { name: 'Apply design' })).toBeDisabled();
  });

  it('applies after confirming the replacement, then reports and reloads', async () => {
    const calls = stubServer((body) => ({ status: 200, body: grid(body) }));
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
    const { region, onApplied } = renderGenerator();
    fillThreeByThree(region);
    const apply = within(region).getByRole('button', { name: 'Apply design' });
    await waitFor(() => {
      expect(apply).toBeEnabled();
    }, { timeout: 8000 });
    fireEvent.click(apply);
    expect(confirm).toHaveBeenCalledWith('Replace the 3 current scenario(s) with the 9 of this design?');
    expect(await within(region).findByTestId('design-applied')).toHaveTextContent('Applied: the study now has 9 scenario(s).');
    expect(onApplied).toHaveBeenCalledTimes(1);
    expect(calls.filter((c) => !c.body.dry_run)).toHaveLength(1);
  });

  it('previews one factor at a time and applies nothing when the replacement is not confirmed', async () => {
    const calls = stubServer((body) => ({ status: 200, body: grid(body) }));
    vi.spyOn(window, 'confirm').mockReturnValue(false);
    const { region, onApplied } = renderGenerator();
    fireEvent.click(within(region).getByRole('radio', { name: /One factor at a time/ }));
    fireEvent.change(within(region).getByLabelText(/^Levels/), { target: { value: '0, 50' } });
    const apply = within(region).getByRole('button', { name: 'Apply design' });
    await waitFor(() => {
      expect(apply).toBeEnabled();
    }, { timeout: 8000 });
    fireEvent.click(apply);
    expect(onApplied).not.toHaveBeenCalled();
    expect(calls.every((c) => c.body.dry_run)).toBe(true);
    expect(calls.at(-1)?.body).toMatchObject({ kind: 'one_at_a_time', factors: [{ key: 'delay_ms', levels: [0, 50] }] });
  });

  it('does not mark the empty Levels field before the researcher has typed in it or left it', () => {
    stubServer(() => ({ status: 200, body: { count: 0, session_minutes: 0, scenarios: [] } }));
    const { region } = renderGenerator();
    const levels = within(within(region).getByRole('group', { name: 'Factor 1' })).getByLabelText(/^Levels/);
    expect(levels).not.toHaveAttribute('aria-invalid', 'true');
    expect(within(region).getByTestId('design-preview')).toHaveTextContent('Give the levels of each factor to see the preview.');
    // Left empty: now it is a mistake, said at the field.
    fireEvent.blur(levels);
    expect(levels).toHaveAttribute('aria-invalid', 'true');
    expect(levels).toHaveAccessibleDescription(/Give the levels of delay/);
  });
});
