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
    agent_ca_cert: '',
    agent_ca_fingerprints: [],
    topology: '',
    notes: '',
    last_checked_at: null,
    last_check_ok: null,
    last_check_message: '',
    owner: 'alice',
    shared: false,
    can_change: true,
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
    kernel_read_back: false,
    lease_seconds: 10,
    lease_expires_at: '2026-01-01T10:00:10Z',
    ...patch,
  };
}

function renderWith(answer: { status: number; body: unknown }, current: Station = station(), bodies: unknown[] = []) {
  const calls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      calls.push(`${init?.method ?? 'GET'} ${url}`);
      if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body));
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
    expect(outcome).toHaveTextContent('Not verified: the agent recorded the baseline (no impairment) without applying it to a kernel.');
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

describe('Owned stations', () => {
  it('shows the owner and whether the station is shared', async () => {
    renderWith({ status: 200, body: {} }, station({ shared: true }));
    const card = await screen.findByRole('listitem');
    expect(card).toHaveTextContent('Owneralice · shared: every researcher may run sessions on it');
  });

  it("is read-only for a researcher who may not change it: no check, test or edit", async () => {
    const calls = renderWith({ status: 200, body: {} }, station({ owner: 'bob', shared: true, can_change: false }));
    expect(await screen.findByTestId('station-read-only')).toHaveTextContent(
      'Read-only: only its owner or staff may change, check or test this station; you may run sessions on it.',
    );
    expect(screen.queryByRole('button', { name: 'Check agent' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Apply baseline (test)' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Edit Seat 1' })).not.toBeInTheDocument();
    expect(calls.filter((c) => !c.startsWith('GET'))).toEqual([]);
  });

  it('cannot be edited or checked while a session holds it', async () => {
    renderWith({ status: 200, body: {} }, station({ busy_with_session: 12 }));
    expect(await screen.findByRole('button', { name: 'Check agent' })).toBeDisabled();
    const form = screen.getByRole('region', { name: 'Edit Seat 1' });
    expect(within(form).getByRole('button', { name: 'Save station' })).toBeDisabled();
    expect(within(form).getByLabelText('Agent URL')).toBeDisabled();
    expect(screen.getByText(/A session holds this station: it cannot be changed/)).toBeInTheDocument();
  });

  it('asks for the token again when the agent URL changes, and sends "shared"', async () => {
    const bodies: unknown[] = [];
    const calls = renderWith({ status: 200, body: {} }, station(), bodies);
    const form = await screen.findByRole('region', { name: 'Edit Seat 1' });
    fireEvent.change(within(form).getByLabelText('Agent URL'), { target: { value: 'http://10.9.0.7:8787' } });
    expect(within(form).getByLabelText('Agent token')).toBeRequired();
    fireEvent.click(within(form).getByRole('button', { name: 'Save station' }));
    expect(await within(form).findByText(/Enter the agent's token for the new URL/)).toBeInTheDocument();
    expect(calls.filter((c) => c.startsWith('PATCH'))).toEqual([]);

    fireEvent.change(within(form).getByLabelText('Agent token'), { target: { value: 'new-token-0123456789' } });
    fireEvent.click(within(form).getByRole('checkbox', { name: /Shared/ }));
    fireEvent.click(within(form).getByRole('button', { name: 'Save station' }));
    expect(await within(form).findByText('Saved.')).toBeInTheDocument();
    expect(calls).toContain('PATCH /api/v1/stations/4/');
    expect(bodies).toEqual([
      { name: 'Seat 1', agent_url: 'http://10.9.0.7:8787', agent_ca_cert: '', topology: '', shared: true, agent_token: 'new-token-0123456789' },
    ]);
  });

  it('needs no token when only the name or a trailing slash changes', async () => {
    const bodies: unknown[] = [];
    renderWith({ status: 200, body: {} }, station(), bodies);
    const form = await screen.findByRole('region', { name: 'Edit Seat 1' });
    fireEvent.change(within(form).getByLabelText('Agent URL'), { target: { value: 'http://127.0.0.1:8787/' } });
    fireEvent.change(within(form).getByLabelText('Name'), { target: { value: 'Seat 2' } });
    expect(within(form).getByLabelText('Agent token')).not.toBeRequired();
    fireEvent.click(within(form).getByRole('button', { name: 'Save station' }));
    expect(await within(form).findByText('Saved.')).toBeInTheDocument();
    expect(bodies).toEqual([{ name: 'Seat 2', agent_url: 'http://127.0.0.1:8787/', agent_ca_cert: '', topology: '', shared: false }]);
  });
});

describe('Agent TLS (issue 13)', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  function renderForm(answer: { status: number; body: unknown }, current: Station) {
    const sent: { method: string; url: string; body: unknown }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
        const method = init?.method ?? 'GET';
        if (method === 'GET') return Promise.resolve(jsonResponse([current]));
        sent.push({ method, url, body: JSON.parse(typeof init?.body === 'string' ? init.body : 'null') as unknown });
        return Promise.resolve(jsonResponse(answer.body, answer.status));
      }),
    );
    render(withQueries(<MemoryRouter><StationsPage /></MemoryRouter>));
    return sent;
  }

  it('sends the pasted CA certificate with the station and shows its fingerprint', async () => {
    const https = station({ agent_url: 'https://10.9.0.2:8787', agent_ca_cert: pem, agent_ca_fingerprints: ['AB:CD'] });
    const sent = renderForm({ status: 201, body: https }, https);
    expect(await screen.findByText('HTTPS, certificate checked against SHA-256 AB:CD')).toBeInTheDocument();
    const form = screen.getByRole('region', { name: 'New station' });
    fireEvent.change(within(form).getByLabelText('Name'), { target: { value: 'Seat 2' } });
    fireEvent.change(within(form).getByLabelText('Agent URL'), { target: { value: 'https://10.9.0.3:8787' } });
    fireEvent.change(within(form).getByLabelText('Agent token'), { target: { value: 'token-0123456789abcdef' } });
    fireEvent.change(within(form).getByLabelText('Agent CA certificate (PEM)'), { target: { value: pem } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add station' }));
    expect(await within(form).findByText('Saved.')).toBeInTheDocument();
    expect(sent).toEqual([
      {
        method: 'POST',
        url: '/api/v1/stations/',
        body: { name: 'Seat 2', agent_url: 'https://10.9.0.3:8787', agent_ca_cert: pem, topology: '', shared: false, agent_token: 'token-0123456789abcdef' },
      },
    ]);
    // The edit form starts from the stored certificate.
    const edit = screen.getByRole('region', { name: 'Edit Seat 1' });
    expect(within(edit).getByLabelText('Agent CA certificate (PEM)')).toHaveValue(pem);
  });

  it('shows the server\'s reason under the certificate field and says when the token travels in clear', async () => {
    renderForm({ status: 400, body: { agent_ca_cert: ["this is a private key: paste the agent's certificate (agent.crt), never its key"] } }, station());
    expect(await screen.findByText(/plain HTTP, the token travels in clear/)).toBeInTheDocument();
    const form = screen.getByRole('region', { name: 'New station' });
    fireEvent.change(within(form).getByLabelText('Agent CA certificate (PEM)'), { target: { value: '-----BEGIN PRIVATE KEY-----' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add station' }));
    expect(await within(form).findByText(/this is a private key/)).toBeInTheDocument();
    expect(within(form).getByLabelText('Agent CA certificate (PEM)')).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('baselineReport', () => {
  it('names a real backend and a state that is not the baseline', () => {
    const report = baselineReport(
      result({ backend: 'iproute2', kernel_read_back: true, lease_expires_at: null, verified_profile: { upstream: { ...zero, delay_ms: 12.5 }, downstream: zero } }),
      () => 'never',
    );
    expect(report.headline).toBe('The agent read back a state that is not the baseline.');
    expect(report.directions[0]).toBe('upstream (client → server): 12.5 ms delay, 0 ms jitter, 0 % loss');
    expect(report.notes).toEqual(['Agent backend: iproute2.', 'The agent removes the test profile by itself after 10 s.']);
  });

  it('calls only a kernel read-back verified', () => {
    const readBack = baselineReport(result({ backend: 'netlink', kernel_read_back: true }), () => 'at 10:00');
    expect(readBack.headline).toBe('Verified: the agent applied the baseline (no impairment) and read it back.');
    const recorded = baselineReport(result({ backend: 'dry-run', kernel_read_back: false }), () => 'at 10:00');
    expect(recorded.headline).toMatch(/^Not verified: /);
  });
});
