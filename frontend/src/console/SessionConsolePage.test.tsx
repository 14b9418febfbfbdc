import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';

import type { Session } from '../api';
import { jsonResponse } from '../test/fetchMock';
import { SessionConsolePage } from './SessionConsolePage';
import { withQueries } from '../test/queries';

const profile = (delay: number, loss: number) => ({ delay_ms: delay, jitter_ms: 0, loss_pct: loss });

function session(patch: Partial<Session>): Session {
  return {
    id: 7,
    study: 1,
    study_version: 1,
    participant: 3,
    participant_code: 'P003',
    game: 1,
    game_name: 'Gran Turismo',
    station: 1,
    station_name: 'Seat 1',
    state: 'playing',
    revision: 20,
    paused_from: '',
    paused_at: null,
    message: '',
    order_policy: 'random',
    seed: 42,
    latin_square_row: null,
    order: ['B', 'D2', 'A2'].map((code, i) => ({ scenario: i + 1, code, round: 1 })),
    position: 2,
    scenario_count: 3,
    training_count: 0,
    phase: 'test',
    phase_position: 2,
    phase_count: 3,
    current_scenario: { id: 2, code: 'D2', label: 'Delay 400 ms RTT', round: 1, requested_profile: { upstream: profile(200, 0), downstream: profile(200, 0) } },
    seconds_remaining: 42,
    applied_profile: { upstream: profile(200, 0), downstream: profile(200, 0) },
    applied_at: '2026-01-01T10:00:00Z',
    applied_backend: 'netlink',
    applied_agent_version: '0.1.0',
    applied_kernel: null,
    applied_verified_at: '2026-01-01T10:00:00Z',
    lease_renewed_at: '2026-01-01T10:00:10Z',
    impairment_cleared_at: null,
    scenario_started_at: '2026-01-01T10:00:00Z',
    scenario_ended_at: null,
    step_started_at: '2026-01-01T10:00:00Z',
    imported: false,
    created_at: '2026-01-01T09:00:00Z',
    started_at: '2026-01-01T09:10:00Z',
    completed_at: null,
    ratings: [
      { id: 1, session: 7, scenario: 1, scenario_code: 'B', position: 1, round: 1, values: { overall: 5 }, training: false, response_ms: 2300, since_end_ms: 900, scenario_started_at: null, scenario_ended_at: null, rated_at: '', applied_profile: null, provenance: { backend: 'netlink', agent_version: '0.1.0', kernel: null, verified_at: '2026-01-01T09:59:00Z' }, idempotency_key: 'k', source: 'participant' },
    ],
    answers: [],
    participant_token: 'tok-abcdefghijklmnopqrstuv',
    poll_interval_ms: 60_000,
    ...patch,
  };
}

function renderConsole(body: Session, study: unknown = body) {
  const fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
    if (url === '/api/v1/studies/1/') return Promise.resolve(jsonResponse(study));
    if (init?.method === 'POST' && url === '/api/v1/sessions/7/resume/') return Promise.resolve(jsonResponse(session({ state: 'applying' })));
    return Promise.resolve(jsonResponse(body));
  });
  vi.stubGlobal('fetch', fetchMock);
  render(
    withQueries(
      <MemoryRouter initialEntries={['/console/sessions/7']}>
        <Routes>
          <Route path="/console/sessions/:sessionId" element={<SessionConsolePage />} />
        </Routes>
      </MemoryRouter>,
    ),
  );
  return fetchMock;
}

describe('the session console', () => {
  it('shows the state, the hidden scenario, the verified impairment, a countdown and the link', async () => {
    renderConsole(session({}));
    expect(await screen.findByRole('heading', { name: 'Session 7: P003 plays Gran Turismo' })).toBeInTheDocument();
    expect(screen.getByTestId('session-state')).toHaveTextContent('Playing');
    expect(screen.getByText('scenario 2 of 3')).toBeInTheDocument();
    expect(screen.getByTestId('current-scenario')).toHaveTextContent('D2');
    expect(screen.getByTestId('console-countdown')).toHaveTextContent(/0:4[12]/);
    const table = screen.getByRole('table', { name: 'Requested and verified impairment' });
    expect(within(table).getAllByText('200')).toHaveLength(4);
    expect(screen.getByText(/Verified: the agent read this state back/)).toBeInTheDocument();
    expect(screen.getByTestId('participant-link')).toHaveAttribute('href', expect.stringMatching(/\/participant\/7#t=tok-abcdefghijklmnopqrstuv$/));
    expect(screen.getByRole('img', { name: /QR code/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'End this scenario now' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Pause' })).toBeInTheDocument();
    expect(screen.getByText('rated 5')).toBeInTheDocument();
  });

  it('says in plain words when the agent failed, and resumes', async () => {
    const fetchMock = renderConsole(
      session({
        state: 'paused',
        paused_from: 'applying',
        position: 2,
        applied_profile: null,
        message: "[10:00:00] Could not apply scenario 2 of 3 (D2) at station 'Seat 1': the agent is unreachable.",
      }),
    );
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The network emulator at station “Seat 1” failed, so the session is paused.');
    expect(alert).toHaveTextContent(/press Resume/);
    expect(screen.getByText(/Not verified yet/)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Resume' }));
    expect(await screen.findByText('Applying scenario')).toBeInTheDocument();
    expect(fetchMock.mock.calls.some(([url, init]) => url === '/api/v1/sessions/7/resume/' && init?.method === 'POST')).toBe(true);
  });

  it('shows no heartbeat alarm for an earlier rating, only for the one in progress (issue 35)', async () => {
    const failure = '[10:00:10] Heartbeat failed while rating scenario 1 of 3 (B): the agent at http://seat1:8787 is unreachable (ConnectionError)';
    renderConsole(session({ state: 'rating', position: 2, message: failure }));
    expect(await screen.findByText('scenario 2 of 3')).toBeInTheDocument();
    expect(screen.getByText(failure)).toBeInTheDocument(); // the log keeps it
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows the heartbeat alarm while the agent fails during the rating in progress', async () => {
    const failure = '[10:00:10] Heartbeat failed while rating scenario 2 of 3 (D2): the agent at http://seat1:8787 is unreachable (ConnectionError)';
    renderConsole(session({ state: 'rating', position: 2, message: failure }));
    expect(await screen.findByRole('alert')).toHaveTextContent('did not answer the heartbeat while the participant rates');
  });

  it('marks the training slots in the order and shows every item of a rating', async () => {
    const order = [
      { scenario: 1, code: 'B', round: 0, training: true },
      { scenario: 2, code: 'D2', round: 0, training: true },
      { scenario: 1, code: 'B', round: 1 },
      { scenario: 2, code: 'D2', round: 1 },
    ];
    const rating = session({}).ratings[0];
    if (!rating) throw new Error('fixture');
    renderConsole(
      session({
        order,
        position: 2,
        scenario_count: 4,
        training_count: 2,
        phase: 'training',
        ratings: [{ ...rating, values: { overall: 4, input_quality: 5.5 }, training: true }],
      }),
    );
    const list = await screen.findByRole('list', { name: 'Scenario order' });
    const slots = within(list).getAllByRole('listitem');
    expect(slots.map((li) => li.classList.contains('order__item--training'))).toEqual([true, true, false, false]);
    const [first] = slots;
    if (!first) throw new Error('no slot');
    expect(within(first).getByText('training')).toBeInTheDocument();
    expect(slots[0]).toHaveTextContent('rated overall 4 · input_quality 5.5');
    expect(screen.getByText(/1 of 4 rated \(the first 2 are training slots, excluded from the analysis\)/)).toBeInTheDocument();
    expect(screen.getByText(/scenario 2 of 4 \(training\)/)).toBeInTheDocument();
    expect(screen.getByText('training — not analysed')).toBeInTheDocument();
  });

  it('shows no dry-run banner for a netlink agent', async () => {
    renderConsole(session({}));
    await screen.findByTestId('session-state');
    expect(screen.queryByTestId('dry-run-banner')).toBeNull();
  });

  it('warns while the scenario comes from a dry-run agent, which verified nothing', async () => {
    renderConsole(session({ applied_backend: 'dry-run', applied_agent_version: '0.1.0', applied_verified_at: null }));
    const banner = await screen.findByTestId('dry-run-banner');
    expect(banner).toHaveTextContent('Dry run: the agent at station “Seat 1” applies nothing to the network (agent 0.1.0).');
    expect(banner).toHaveTextContent(/marked dry-run in the exports/);
    expect(screen.getByText(/Not verified: the dry-run agent recorded this state/)).toBeInTheDocument();
    expect(screen.queryByText(/Verified: the agent read this state back/)).toBeNull();
  });

  it("describes the rating form from the study's own rating items (issue 35)", async () => {
    const item = (key: string, kind: string, min: number, max: number) => ({ key, question: { en: key, de: key }, scale: { kind, min, max, step: null, labels: [] }, required: true });
    const rating_items = [item('overall', 'acr5', 1, 5), item('input_quality', 'continuous', 1, 7), item('video_quality', 'continuous', 1, 7), item('acceptance', 'binary', 0, 1)];
    renderConsole(session({ state: 'rating' }), { id: 1, rating_items });
    expect(
      await screen.findByText('Participant sees: The rating form (4 items: overall 1–5, input_quality 1–7 slider, video_quality 1–7 slider, acceptance yes/no).'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/1 bad … 5 excellent/)).toBeNull();
  });

  it('says the phase a paused session was in, and shows no scenario once aborted (issue 35)', async () => {
    renderConsole(session({ state: 'paused', paused_from: 'playing', applied_profile: null, message: '[10:00:00] Paused by the researcher.' }));
    expect(await screen.findByText('(from Playing)')).toBeInTheDocument();
    cleanup();
    // even were the API to send the last scenario, an aborted session plays nothing
    renderConsole(session({ state: 'aborted', applied_profile: null, message: '[10:00:00] Aborted.' }));
    expect(await screen.findByText('No scenario is being played.')).toBeInTheDocument();
    expect(screen.queryByText(/Not verified yet/)).toBeNull();
    expect(screen.queryByTestId('current-scenario')).toBeNull();
  });

  it('explains a dry-run refusal in production instead of blaming the emulator', async () => {
    renderConsole(
      session({
        state: 'paused',
        paused_from: 'applying',
        applied_profile: null,
        applied_backend: 'dry-run',
        applied_verified_at: null,
        message:
          "[10:00:00] Could not apply scenario 2 of 3 (D2): station 'Seat 1' runs a dry-run agent; this study is not marked as a rehearsal. A dry-run agent applies nothing to a kernel: run the session on a station with a netlink agent, or mark the study as a rehearsal.",
      }),
    );
    const alerts = await screen.findAllByRole('alert');
    const text = alerts.map((a) => a.textContent).join(' ');
    expect(text).toContain('The agent at station “Seat 1” is a dry-run agent');
    expect(text).toContain('Rehearsal');
    expect(text).not.toContain('The network emulator at station “Seat 1” failed');
  });
});
