import { fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { jsonResponse } from '../../test/fetchMock';
import { withQueries } from '../../test/queries';
import SteeringPage from './SteeringPage';
import { service, steeringState } from './statusFixture';

// jsdom has no canvas: the stand-in keeps the datasets Chart.js would receive.
const drawn = vi.hoisted(() => ({ labels: [] as string[] }));
vi.mock('react-chartjs-2', () => ({
  Chart: (p: { data: { datasets: { label: string }[] }; 'aria-label'?: string }) => {
    drawn.labels = p.data.datasets.map((d) => d.label);
    return <canvas role="img" aria-label={p['aria-label']} />;
  },
}));

interface Answer {
  status: number;
  body: unknown;
}

function serve(state: Answer, services: unknown[] = [service]) {
  const calls: { method: string; url: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      const method = init?.method ?? 'GET';
      calls.push({ method, url, body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null });
      if (url === '/api/v1/steering-services/7/state/') return Promise.resolve(jsonResponse(state.body, state.status, state.status === 200 ? 'OK' : 'Bad Gateway'));
      if (url === '/api/v1/steering-services/' && method === 'POST') return Promise.resolve(jsonResponse({ ...service, id: 8, name: 'Second' }, 201));
      if (url === '/api/v1/steering-services/') return Promise.resolve(jsonResponse(services));
      return Promise.resolve(jsonResponse({ detail: 'not mocked' }, 404, 'Not Found'));
    }),
  );
  render(
    withQueries(
      <MemoryRouter initialEntries={['/console/steering']}>
        <SteeringPage />
      </MemoryRouter>,
    ),
  );
  return calls;
}

beforeEach(() => {
  drawn.labels = [];
});

describe('SteeringPage', () => {
  it('shows paths with KPIs beside the bounds, the active path, alarms and events', async () => {
    serve({ status: 200, body: steeringState() });
    const table = await screen.findByRole('table', { name: 'Paths for cloud-gaming.fast' });

    // over the bound: said in words and marked for colour
    const aUp = within(table).getByTestId('kpi-a-upstream');
    const over = within(aUp).getByText('95.0 ms (over bound)');
    expect(over).toHaveClass('kpi--over');
    expect(aUp).toHaveTextContent('not acceptable');
    expect(within(aUp).getByText('76.0 ms')).not.toHaveClass('kpi--over');
    expect(within(table).getByTestId('kpi-a-downstream')).toHaveTextContent('0.50 % (over bound)');
    expect(within(table).getByTestId('kpi-a-downstream')).toHaveTextContent('199/200 received');

    // the active, acceptable path; the stale one greyed with its reason
    expect(within(table).getByTestId('kpi-b-upstream')).toHaveTextContent('active, acceptable');
    const stale = within(table).getByTestId('kpi-c-upstream');
    expect(stale).toHaveClass('kpi-row--stale');
    expect(stale).toHaveTextContent('stale: no probe answered for 1.8 s');
    expect(within(aUp).getAllByText('≤ 72.7 ms')).toHaveLength(1);
    expect(aUp).toHaveTextContent('≤ 0.36 %');

    expect(screen.getByTestId('flow-game')).toHaveTextContent(/game \(cloud-gaming\.fast\): path b since .* \(2\.8 s\)/);
    expect(screen.getByRole('alert', { name: 'Alarms' })).toHaveTextContent('probes_lost');

    const events = screen.getByRole('table', { name: 'Last events' });
    const rows = within(events).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent('moved');
    expect(rows[0]).toHaveTextContent('a → b');
    expect(rows[0]).toHaveTextContent('path a violates upstream delay 95.0 > 72.7 ms');
    expect(rows[0]).toHaveTextContent('4 ms');

    expect(drawn.labels).toContain('a/upstream delay p95');
    expect(drawn.labels.some((l) => l.startsWith('bound 72.7 ms'))).toBe(true);
  });

  it('names what failed when the backend cannot read the service', async () => {
    serve({
      status: 502,
      body: { detail: 'the status document of http://127.0.0.1:8790/v1/status does not fit the qoe-steer contract: paths[0].port: expected a port number or name', failure: 'malformed', field: 'paths[0].port' },
    });
    const error = await screen.findByTestId('state-error');
    expect(error).toHaveTextContent('paths[0].port: expected a port number or name');
  });

  it('registers a service with its token and selects it', async () => {
    const calls = serve({ status: 200, body: steeringState() }, []);
    await screen.findByText(/No steering service yet/);
    const form = screen.getByRole('form', { name: 'New steering service' });
    fireEvent.change(within(form).getByLabelText('Name'), { target: { value: 'Second' } });
    fireEvent.change(within(form).getByLabelText('Status URL'), { target: { value: 'http://127.0.0.1:8791' } });
    fireEvent.change(within(form).getByLabelText('Status token'), { target: { value: 'a-status-token-0123456789' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add service' }));
    await within(form).findByText('Saved.');
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({ name: 'Second', status_url: 'http://127.0.0.1:8791', token: 'a-status-token-0123456789', ca_cert: '' });
  });
});
