import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { mockFetch } from '../test/fetchMock';
import { withQueries } from '../test/queries';
import { ApiError } from '../api';
import { boundRows, cornerPart, dryRunText, isDryRunRefusal, jointRows, marginalText, POLICY_FORMATS, policyPath } from './policy';
import type { MarginalBound, MetricBound, PolicyDoc } from './policy';
import PolicyPage from './PolicyPage';

/** A marginal estimate (policy 1.0's bound) of the delay. */
const marginal = (bound: number | null, basis: string, ci: [number, number] | null): MarginalBound => ({
  metric_type: 'one-way-delay-maximum',
  metric_unit: 'milliseconds',
  bound,
  basis,
  ci95: ci ? { low: ci[0], high: ci[1], source: 'logistic_symmetric' } : null,
  interval: ci ? { low: ci[0], high: ci[1], kind: 'fieller_95' } : { low: 120, high: 180, kind: 'tested_bracket', extrapolated: true },
  note: 'why',
});

/** A 2.0 bound: the joint corner value, the marginal estimate beside it. */
const delay = (bound: number | null, factor: string, m: MarginalBound | null): MetricBound => ({
  metric_type: 'one-way-delay-maximum',
  metric_unit: 'milliseconds',
  bound,
  basis: bound === null ? 'no_joint_bound' : 'joint_logistic',
  factor,
  tested_max: 200,
  estimates: { marginal: m },
  note: 'why',
});

function policy(): PolicyDoc {
  const loss = (bound: number | null, m: MarginalBound): MetricBound => ({ ...delay(bound, 'both_loss_pct', { ...m, metric_type: 'one-way-packet-loss', metric_unit: 'percent' }), metric_type: 'one-way-packet-loss', metric_unit: 'percent' });
  return {
    policy_version: '2.0',
    target: { acceptable_from: 3, label: 'share of ratings >= 3 is >= 50 %' },
    provenance: { study: { id: 7, title: 'Grid', version: 2 }, n_raters: 4, n_ratings: 80, reliable_only: false },
    classes: [
      {
        id: 'cloud-gaming.fast',
        pace: 'fast',
        games: ['racing'],
        status: 'ok',
        directions: {
          downstream: { metric_bounds: [delay(80, 'ds_delay_ms', marginal(130, 'tree_split', null)), loss(1.25, marginal(1.5, 'symmetric_logistic', [1.2, 1.9]))] },
          upstream: { metric_bounds: [loss(1.25, marginal(1.5, 'symmetric_logistic', [1.2, 1.9]))] },
        },
      },
      { id: 'cloud-gaming.slow', pace: 'slow', games: ['chess'], status: 'no_joint_bound', directions: { downstream: { metric_bounds: [delay(null, 'ds_delay_ms', marginal(null, 'not_acceptable_at_zero', null))] }, upstream: { metric_bounds: [] } } },
    ],
  };
}

const params = { reliableOnly: false, serverIp: '', serverPort: '', protocol: 'udp' as const };

/** The policy of 2.0: a joint corner per class and the provenance's dry-run share and warnings. */
function jointPolicy(): PolicyDoc {
  const doc = policy();
  doc.provenance = { ...doc.provenance, n_ratings_dry_run: 60, dry_run_share: 0.75, warnings: [{ code: 'thin_evidence', message: 'only 2 raters per condition; 4 are needed', where: 'conditions' }] };
  const [fast, slow] = doc.classes;
  if (fast) fast.joint = { status: 'ok', reason: null, corner: { ds_delay_ms: 80, both_loss_pct: 1.25 }, predicted: 0.6234, predicted_ci95: [0.5012, 0.74], observed_share: 0.5833, observed_n: 12, target: 0.5 };
  if (slow) slow.joint = { status: 'no_joint_bound', reason: 'even without impairment the lower bound is below the target', corner: null, predicted: null, predicted_ci95: null, observed_share: null, observed_n: 0, target: 0.5 };
  return doc;
}

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
  it('gives one row per class, direction and bound: the joint corner value, the marginal estimate beside it', () => {
    const doc = jointPolicy();
    const rows = boundRows(doc);
    expect(rows.map((r) => `${r.classId}/${r.direction}/${r.kpi}`)).toEqual([
      'cloud-gaming.fast/downstream/max one-way delay',
      'cloud-gaming.fast/downstream/max packet loss (both directions, one factor)',
      'cloud-gaming.fast/upstream/max packet loss (both directions, one factor)',
      'cloud-gaming.slow/downstream/max one-way delay',
    ]);
    expect(rows[0]).toMatchObject({ bound: '80 ms', marginal: '130 ms (120–180 ms, tested bracket, extrapolated)', basis: 'joint logistic' });
    expect(rows[1]).toMatchObject({ bound: '1.25 %', marginal: '1.5 % (1.2–1.9 %, 95 % CI)' });
    expect(rows[3]).toMatchObject({ bound: 'no joint bound (why: see the joint corner)', marginal: 'not acceptable even without impairment', basis: 'no joint bound' });
    expect(marginalText({ ...marginal(3, 'tree_split', null), interval: { low: 3, high: null, kind: 'beyond_tested_range' } })).toBe('3 ms (≥ 3 ms, beyond tested range)');
    expect(marginalText(null)).toBe('—');
  });

  it('builds the download paths with the flow selector', () => {
    expect(policyPath(7, 'faucet', params)).toBe('/api/v1/studies/7/policy/faucet/');
    expect(policyPath(7, null, { ...params, serverIp: '198.51.100.7', serverPort: '5004', reliableOnly: true })).toBe(
      '/api/v1/studies/7/policy/?reliable_only=true&server_ip=198.51.100.7&server_port=5004&protocol=udp',
    );
    expect(POLICY_FORMATS.map((f) => f.format)).toEqual(['json', 'faucet', 'ovs', 'onos', 'rest_qos', 'ietf']);
  });
});

describe('policy 2.0: joint corner and provenance', () => {
  it('says per class where every bound is reached at once, with predicted and observed shares', () => {
    const extrapolated = jointPolicy();
    const fastJoint = extrapolated.classes[0]?.joint;
    if (fastJoint) fastJoint.extrapolated = true;
    expect(jointRows(extrapolated)[0]?.corner).toBe('downstream delay ≤ 80 ms, both directions loss ≤ 1.25 % (beyond the tested combinations: extrapolated)');
    expect(cornerPart('ds_delay_ms', 80)).toBe('downstream delay ≤ 80 ms');
    expect(cornerPart('both_loss_pct', 1.25)).toBe('both directions loss ≤ 1.25 %');
    expect(jointRows(jointPolicy())).toEqual([
      {
        classId: 'cloud-gaming.fast',
        games: 'racing',
        status: 'ok',
        corner: 'downstream delay ≤ 80 ms, both directions loss ≤ 1.25 %',
        predicted: '62.3 % (95 % CI 50.1 %–74 %)',
        observed: '58.3 % of 12 ratings',
        target: '≥ 50 %',
      },
      {
        classId: 'cloud-gaming.slow',
        games: 'chess',
        status: 'no joint bound',
        corner: 'no joint bound: even without impairment the lower bound is below the target',
        predicted: '—',
        observed: '— (0 ratings near the corner)',
        target: '≥ 50 %',
      },
    ]);
    expect(jointRows(policy())).toEqual([]); // no class with a joint object: no row
  });

  it('states the dry-run share from the share or the counts, and none when unknown', () => {
    expect(dryRunText(jointPolicy().provenance)).toBe('60 of 80 ratings (75 %) were taken on a dry-run agent: the impairment was not applied, so those ratings are of unimpaired play.');
    expect(dryRunText({ n_ratings: 80, n_ratings_dry_run: 0 })).toBe('No rating was taken on a dry-run agent.');
    expect(dryRunText({ n_ratings: 80 })).toBeNull();
    expect(dryRunText({ n_ratings: 80, n_ratings_dry_run: null, dry_run_share: null })).toContain('no agent provenance');
  });

  it('tells the dry-run refusal from other 400s', () => {
    expect(isDryRunRefusal(new ApiError('x', 400, 'mostly dry-run', { detail: 'mostly dry-run', code: 'dry_run' }))).toBe(true);
    expect(isDryRunRefusal(new ApiError('x', 400, 'bad', { detail: 'bad' }))).toBe(false);
    expect(isDryRunRefusal(new ApiError('x', 409, 'no', { code: 'dry_run' }))).toBe(false);
    expect(policyPath(7, 'ovs', { ...params, allowDryRun: true })).toBe('/api/v1/studies/7/policy/ovs/?allow_dry_run=true');
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
    expect(within(table).getAllByText('no joint bound')).toHaveLength(2); // the bound and its basis
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

  it('shows what the policy was learnt from first, then the joint corners', async () => {
    mockFetch({
      '/api/v1/studies/7/': { body: { id: 7, title: 'Grid', version: 2, games: [], scenarios: [] } },
      '/api/v1/studies/7/policy/': { body: jointPolicy() },
    });
    renderPage();
    const provenance = await screen.findByTestId('policy-provenance');
    expect(provenance).toHaveTextContent('80 ratings of 4 raters');
    expect(provenance).toHaveTextContent('60 of 80 ratings (75 %) were taken on a dry-run agent');
    expect(within(screen.getByTestId('policy-warnings')).getByText('only 2 raters per condition; 4 are needed')).toBeInTheDocument();
    const joint = screen.getByRole('table', { name: 'Joint corner per game class' });
    expect(within(joint).getAllByRole('row')).toHaveLength(1 + 2);
    expect(within(joint).getByText('downstream delay ≤ 80 ms, both directions loss ≤ 1.25 %')).toBeInTheDocument();
    // Provenance before the joint corners, the joint corners before the bounds.
    const bounds = screen.getByRole('table', { name: 'KPI bounds per game class and direction' });
    expect(provenance.compareDocumentPosition(joint) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(joint.compareDocumentPosition(bounds) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('refuses a mostly dry-run policy until "export anyway" is chosen, then downloads with it', async () => {
    const fetchMock = mockFetch({
      '/api/v1/studies/7/': { body: { id: 7, title: 'Grid', version: 2, games: [], scenarios: [] } },
      '/api/v1/studies/7/policy/': { status: 400, statusText: 'Bad Request', body: { detail: '75 % of the ratings are dry-run ratings', code: 'dry_run' } },
      '/api/v1/studies/7/policy/?allow_dry_run=true': { body: jointPolicy() },
      '/api/v1/studies/7/policy/faucet/?allow_dry_run=true': { body: 'faucet text' },
    });
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:x'), revokeObjectURL: vi.fn() }));
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    renderPage();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('learnt mostly from dry-run ratings');
    expect(alert).toHaveTextContent('75 % of the ratings are dry-run ratings');
    expect(screen.getByRole('button', { name: 'Download Faucet (YAML)' })).toBeDisabled();
    fireEvent.click(within(alert).getByRole('button', { name: 'Export anyway (dry-run ratings)' }));
    await screen.findByRole('table', { name: 'Joint corner per game class' });
    expect(screen.getByTestId('policy-dry-run-allowed')).toHaveTextContent('allow_dry_run=true');
    fireEvent.click(screen.getByRole('button', { name: 'Download Faucet (YAML)' }));
    await waitFor(() => {
      expect(fetchMock.mock.calls.some(([url]) => url === '/api/v1/studies/7/policy/faucet/?allow_dry_run=true')).toBe(true);
    });
  });
});
