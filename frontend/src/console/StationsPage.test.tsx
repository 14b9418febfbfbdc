import { fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';

import type { BaselineResult, Station } from '../api';
import { jsonResponse } from '../test/fetchMock';
import { StationsPage } from './StationsPage';
import { baselineReport } from './stationText';
import { withQueries } from '../test/queries';

const zero = { delay_ms: 0, jitter_ms: 0, loss_pct: 0 };

function station(patch: Partial<Station> = {}): Station {
  return {
    id: 4,
    name: 'Seat 1',
    agent_url: 'http://127.0.0.1:8787',
    topology: '',
    notes: '',
    last_checked_at: null,
    last_check_ok: null,
    last_check_message: '',
    agent_capabilities: null,
    busy_with_session: null,
    ...patch,
  };
}

function result(patch: Partial<BaselineResult> = {}): BaselineResult {
  return {
    station: station({ last_check_ok: true }),
    requested_profile: { upstream: zero, downstream: zero },
    verified_profile: { upstream: zero, downstream: zero },
    installed: { upstream: zero, downstream: zero },
    backend: 'dry-run',
    kernel: {},
    lease_seconds: 10,
    lease_expires_at: '2026-01-01T10:00:10Z',
    ...patch,
  };
}

function renderWith(answer: { status: number; body: unknown }, current: Station = station()) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      calls.push(`${init?.method ?? 'GET'} ${url}`);
      if (url === '/api/v1/stations/4/apply-baseline/') return Promise.resolve(jsonResponse(answer.body, answer.status));
      return Promise.resolve(jsonResponse([current]));
    }),
  );
  render(
    withQueries(
      <MemoryRouter>
        <StationsPage />
      </MemoryRouter>,
    ),
  );
  return calls;
}

describe('Apply baseline (test)', () => {
  it('shows the state the agent verified and refreshes the station', async () => {
    const calls = renderWith({ status: 200, body: result() });
    fireEvent.click(await screen.findByRole('button', { name: 'Apply baseline (test)' }));

    const outcome = await screen.findByTestId('baseline-result');
    expect(outcome).toHaveTextContent('Verified: the agent applied the baseline (no impairment) and read it back.');
    expect(within(outcome).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'upstream (client → server): 0 ms delay, 0 ms jitter, 0 % loss',
      'downstream (server → client): 0 ms delay, 0 ms jitter, 0 % loss',
    ]);
    expect(outcome).toHaveTextContent('Dry-run agent: it recorded the kernel operations and changed no interface.');
    expect(calls).toContain('POST /api/v1/stations/4/apply-baseline/');
    expect(calls.filter((c) => c === 'GET /api/v1/stations/').length).toBeGreaterThanOrEqual(2);
  });

  it('explains an agent failure in words (502) and shows no result', async () => {
    renderWith({ status: 502, body: { detail: "The agent of station 'Seat 1' could not apply the test profile: the agent at http://x is unreachable (ConnectionError)" } });
    fireEvent.click(await screen.findByRole('button', { name: 'Apply baseline (test)' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "The baseline could not be applied: The agent of station 'Seat 1' could not apply the test profile: the agent at http://x is unreachable",
    );
    expect(screen.queryByTestId('baseline-result')).not.toBeInTheDocument();
  });

  it('is disabled while a session holds the station', async () => {
    renderWith({ status: 409, body: { detail: 'busy' } }, station({ busy_with_session: 12 }));
    expect(await screen.findByRole('button', { name: 'Apply baseline (test)' })).toBeDisabled();
  });
});

describe('baselineReport', () => {
  it('names a real backend and a state that is not the baseline', () => {
    const report = baselineReport(
      result({ backend: 'iproute2', lease_expires_at: null, verified_profile: { upstream: { ...zero, delay_ms: 12.5 }, downstream: zero } }),
      () => 'never',
    );
    expect(report.headline).toBe('The agent read back a state that is not the baseline.');
    expect(report.directions[0]).toBe('upstream (client → server): 12.5 ms delay, 0 ms jitter, 0 % loss');
    expect(report.notes).toEqual(['Agent backend: iproute2.', 'The agent removes the test profile by itself after 10 s.']);
  });
});
