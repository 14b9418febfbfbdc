import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { mockFetch } from '../test/fetchMock';
import { withQueries } from '../test/queries';
import { boundRows, POLICY_FORMATS, policyPath } from './policy';
import type { MetricBound, PolicyDoc } from './policy';
import PolicyPage from './PolicyPage';

const delay = (bound: number | null, basis: string, ci: [number, number] | null): MetricBound => ({
  metric_type: 'one-way-delay-maximum',
  metric_unit: 'milliseconds',
  bound,
  basis,
  ci95: ci ? { low: ci[0], high: ci[1], source: 'logistic_symmetric' } : null,
  interval: ci ? { low: ci[0], high: ci[1], kind: 'fieller_95' } : { low: 120, high: 180, kind: 'tested_bracket', extrapolated: true },
  note: 'why',
});

function policy(): PolicyDoc {
  return {
    policy_version: '1.0',
    target: { acceptable_from: 3, label: 'share of ratings >= 3 is >= 50 %' },
    provenance: { study: { id: 7, title: 'Grid', version: 2 }, n_raters: 4, n_ratings: 80, reliable_only: false },
    classes: [
      {
        id: 'cloud-gaming.fast',
        pace: 'fast',
        games: ['racing'],
        status: 'ok',
        directions: {
          downstream: { metric_bounds: [delay(130, 'tree_split', null), { ...delay(1.5, 'symmetric_logistic', [1.2, 1.9]), metric_type: 'one-way-packet-loss', metric_unit: 'percent' }] },
          upstream: { metric_bounds: [{ ...delay(12.5, 'tree_split', null), metric_type: 'one-way-delay-variation-maximum' }] },
        },
      },
      { id: 'cloud-gaming.slow', pace: 'slow', games: ['chess'], status: 'not_acceptable_at_zero', directions: { downstream: { metric_bounds: [delay(null, 'not_acceptable_at_zero', null)] }, upstream: { metric_bounds: [] } } },
    ],
  };
}

const params = { reliableOnly: false, serverIp: '', serverPort: '', protocol: 'udp' as const };

function renderPage() {
  return render(
    withQueries(
      <MemoryRouter initialEntries={['/console/studies/7/policy']}>
        <Routes>
          <Route path="/console/studies/:studyId/policy" element={<PolicyPage />} />
        </Routes>
      </MemoryRouter>,
    ),
  );
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('policy transforms', () => {
  it('gives one row per class, direction and bound, with interval and basis in words', () => {
    const rows = boundRows(policy());
    expect(rows.map((r) => `${r.classId}/${r.direction}/${r.kpi}`)).toEqual([
      'cloud-gaming.fast/downstream/max one-way delay',
      'cloud-gaming.fast/downstream/max packet loss',
      'cloud-gaming.fast/upstream/max jitter',
      'cloud-gaming.slow/downstream/max one-way delay',
    ]);
    expect(rows[0]).toMatchObject({ bound: '130 ms', ci: '120–180 ms (tested bracket, extrapolated)', basis: 'tree split' });
    expect(rows[1]).toMatchObject({ bound: '1.5 %', ci: '1.2–1.9 % (95 % CI)' });
    expect(rows[3]?.bound).toBe('not acceptable even without impairment');
    const open = policy();
    const first = open.classes[0]?.directions.downstream?.metric_bounds[0];
    if (first) first.interval = { low: 3, high: null, kind: 'beyond_tested_range' };
    expect(boundRows(open)[0]?.ci).toBe('≥ 3 ms (beyond tested range)');
  });

  it('builds the download paths with the flow selector', () => {
    expect(policyPath(7, 'faucet', params)).toBe('/api/v1/studies/7/policy/faucet/');
    expect(policyPath(7, null, { ...params, serverIp: '198.51.100.7', serverPort: '5004', reliableOnly: true })).toBe(
      '/api/v1/studies/7/policy/?reliable_only=true&server_ip=198.51.100.7&server_port=5004&protocol=udp',
    );
    expect(POLICY_FORMATS.map((f) => f.format)).toEqual(['json', 'faucet', 'ovs', 'onos', 'rest_qos', 'ietf']);
  });
});

describe('the Policy tab', () => {
  it('shows the bounds and downloads every format', async () => {
    const fetchMock = mockFetch({
      '/api/v1/studies/7/': { body: { id: 7, title: 'Grid', version: 2, games: [], scenarios: [] } },
      '/api/v1/studies/7/policy/': { body: policy() },
      ...Object.fromEntries(POLICY_FORMATS.map((f) => [`/api/v1/studies/7/policy/${f.format}/`, { body: `${f.format} text` }])),
    });
    const create = vi.fn(() => 'blob:x');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: create, revokeObjectURL: vi.fn() }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    renderPage();
    const table = await screen.findByRole('table', { name: 'KPI bounds per game class and direction' });
    expect(within(table).getAllByRole('row')).toHaveLength(1 + 4);
    expect(within(table).getByText('not acceptable even without impairment')).toBeInTheDocument();
    const buttons = screen.getAllByRole('button', { name: /^Download / });
    expect(buttons).toHaveLength(6);
    for (const f of POLICY_FORMATS) {
      fireEvent.click(screen.getByRole('button', { name: `Download ${f.label}` }));
      await waitFor(() => {
        expect(fetchMock.mock.calls.some(([url]) => url === `/api/v1/studies/7/policy/${f.format}/`)).toBe(true);
      });
      await waitFor(() => {
        expect(screen.getByRole('button', { name: `Download ${f.label}` })).toBeEnabled();
      });
    }
    expect(click).toHaveBeenCalledTimes(6);
    expect(document.querySelectorAll('[data-format] .policy__howto')).toHaveLength(6);
  });

  it('says in plain words that the analysis has not run yet (409)', async () => {
    mockFetch({
      '/api/v1/studies/7/': { body: { id: 7, title: 'Grid', version: 2, games: [], scenarios: [] } },
      '/api/v1/studies/7/policy/': { status: 409, statusText: 'Conflict', body: { detail: 'no finished analysis of version 2' } },
    });
    renderPage();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('There is no finished analysis of the current study version yet');
    expect(alert).toHaveTextContent('no finished analysis of version 2');
    expect(screen.getByRole('button', { name: 'Download Faucet (YAML)' })).toBeDisabled();
  });
});
