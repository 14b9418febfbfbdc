/**
 * The results page on the pilot of issue 31 (2 games, a 12-scenario grid, 3 raters per game
 * of whom one rates at random): `pilotAnalysis.json` is `qoe-analysis analyze
 * fixtures/data/pilot_random_rater.csv` without the sections these tests do not read
 * (per_item, item_correlations, response_times, fast_raters, subject_model). Regenerate it
 * when the analysis' output for that file changes.
 */
import { render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { jsonResponse } from '../test/fetchMock';
import { withQueries } from '../test/queries';
import type { AnalysisDoc } from './analysisTypes';
import { whisker } from './charts/errorBars';
import { docWarnings, intervalStatus, mosScale } from './evidence';
import pilot from './pilotAnalysis.json';
import ResultsPage from './ResultsPage';
import { reliableRefusal } from './useAnalysis';
import type { AnalysisState, Job } from './useAnalysis';

vi.mock('react-chartjs-2', () => ({
  Chart: (p: { 'aria-label'?: string }) => <canvas role="img" aria-label={p['aria-label']} />,
}));

const pilotDoc = (): AnalysisDoc => JSON.parse(JSON.stringify(pilot)) as AnalysisDoc;

const REFUSAL = 'reliable_only keeps 0 raters, fewer than min_reliable_raters = 3 (0 reliable, 1 unreliable, 5 not assessable)';

function job(id: number, reliableOnly: boolean, state: 'succeeded' | 'failed'): Job {
  return {
    id,
    study: 7,
    study_version: 1,
    reliable_only: reliableOnly,
    state,
    progress: 1,
    stage: '',
    error: state === 'failed' ? REFUSAL : '',
    warnings: [],
    result: state === 'succeeded' ? pilotDoc() : null,
  } as unknown as Job;
}

/** The API: the all-raters analysis succeeds on the pilot, the reliable-raters one is refused. */
function stubApi() {
  const routes: Record<string, (body: unknown) => Response> = {
    '/api/v1/studies/7/': () =>
      jsonResponse({ id: 7, title: 'Pilot', version: 1, games: [{ name: 'racing', pace: 'fast' }, { name: 'soccer', pace: 'slow' }], scenarios: [], ratings_by_backend: {} }),
    '/api/v1/analysis-jobs/': () => jsonResponse([]),
    '/api/v1/analysis-jobs/1/': () => jsonResponse(job(1, false, 'succeeded')),
    '/api/v1/analysis-jobs/2/': () => jsonResponse(job(2, true, 'failed')),
    '/api/v1/analysis-jobs/1/input-csv/': () => new Response('rater_id,session_id,game,scenario,rating\n', { status: 200 }),
    '/api/v1/studies/7/analysis/': (body) =>
      jsonResponse((body as { reliable_only?: boolean }).reliable_only ? job(2, true, 'failed') : job(1, false, 'succeeded'), 202),
  };
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      const route = routes[path.split('?')[0] ?? ''];
      const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
      return Promise.resolve(route ? route(body) : jsonResponse({ detail: `No mock for ${path}` }, 404));
    }),
  );
}

function renderPage(query = '') {
  return render(
    withQueries(
      <MemoryRouter initialEntries={[`/console/studies/7/results${query}`]}>
        <Routes>
          <Route path="/console/studies/:studyId/results" element={<ResultsPage />} />
        </Routes>
      </MemoryRouter>,
    ),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the results page on the pilot with a random rater', () => {
  it('shows the warnings first, grouped, then the planning hint; each figure its own', async () => {
    stubApi();
    const { container } = renderPage();
    const panel = await screen.findByRole('region', { name: /What these data can support/ });
    const doc = pilotDoc();
    expect(panel).toHaveAttribute('data-warnings', String(docWarnings(doc).length));
    // serious first: the thin evidence and what is not assessable
    const groups = within(panel).getAllByRole('heading', { level: 3 }).map((h) => h.textContent);
    expect(groups[0]).toBe('Limits what these results can support');
    expect(within(panel).getAllByText(/not assessable/).length).toBeGreaterThan(0);
    // before the figures
    const firstFigure = container.querySelector('figure');
    expect(firstFigure && panel.compareDocumentPosition(firstFigure) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const planning = screen.getByRole('region', { name: 'Planning: raters per condition' });
    expect(within(planning).getByText(`${doc.planning?.raters_per_condition_for_interval ?? 0} raters per condition`)).toBeInTheDocument();
    expect(planning).toHaveAttribute('data-planning', 'short');
    // figure warnings: the MOS figure shows the conditions' ones, not the reliability ones
    const mos = container.querySelector('figure[data-chart="mos-per-scenario"]');
    const codes = [...(mos?.querySelectorAll('[data-figure-warnings] li') ?? [])].map((li) => li.getAttribute('data-warning'));
    expect(codes.length).toBeGreaterThan(0);
    expect(codes).toEqual(docWarnings(doc).filter((w) => w.where === 'conditions').map((w) => w.code));
    const screening = container.querySelector('figure[data-chart="screening"]');
    expect(screening?.querySelector('tr[data-rule="p913"]')).toHaveAttribute('data-assessable', 'false');
    // not assessable is never shown as reliable
    const intraCells = [...(screening?.querySelectorAll('table[aria-label="Screening per rater"] tr[data-rater] td:first-of-type') ?? [])];
    expect(intraCells.map((td) => td.getAttribute('data-status'))).not.toContain('reliable');
    // on one session of a four-level group every rater is not assessable, the random ones too
    expect(intraCells.filter((td) => td.textContent.startsWith('not assessable: '))).toHaveLength(6);
    // the jitter-like merged factors are one factor each in the factor figures
    const grid = container.querySelector('figure[data-chart="factor-heatmap"] table');
    expect(grid).toHaveAccessibleName(/Both directions: delay \(ms\)/);
    // every tested pair of levels has its MOS: no "not tested" cell on a full grid
    expect(Number(grid?.getAttribute('data-cells'))).toBeGreaterThan(0);
    expect(grid?.getAttribute('data-tested-cells')).toBe(grid?.getAttribute('data-cells'));
  });

  it('says that the analysis refuses "reliable raters only", with its message, and shows all raters', async () => {
    stubApi();
    renderPage('?raters=reliable');
    const alert = await screen.findByText(/Reliable raters only: the analysis refuses/);
    await waitFor(() => {
      expect(alert.closest('[data-reliable-refused]')).toHaveTextContent(REFUSAL);
    });
    expect(screen.getByText('The figures below show all raters.')).toBeInTheDocument();
    expect(screen.queryByText(/Showing all raters until/)).toBeNull();
    expect(document.querySelector('figure[data-chart="mos-per-scenario"] figcaption')).toHaveTextContent('all raters');
  });
});

describe('the pilot document', () => {
  it('has every MOS interval inside the scale, each whisker inside the chart area', () => {
    const doc = pilotDoc();
    const scale = mosScale(doc);
    const area = { left: 40, right: 600, top: 10, bottom: 310 };
    const axis = { min: scale.min, max: scale.max, getPixelForValue: (v: number) => area.bottom - ((v - scale.min) / (scale.max - scale.min)) * (area.bottom - area.top) };
    const rows = [...doc.conditions, ...(doc.mos_by_factor?.single.flatMap((s) => s.points) ?? []), ...(doc.mos_by_factor?.pairs.flatMap((p) => p.cells) ?? [])];
    let clipped = 0;
    for (const row of rows) {
      const status = intervalStatus(row, scale);
      if (row.ci95_low !== null) expect(row.ci95_low).toBeGreaterThanOrEqual(scale.min);
      if (row.ci95_high !== null) expect(row.ci95_high).toBeLessThanOrEqual(scale.max);
      const w = whisker(100, row.ci95_low, row.ci95_high, status, axis, area);
      if (status === 'n_too_small' || status === null) expect(w).toBeNull();
      if (w) {
        expect(w.top).toBeGreaterThanOrEqual(area.top);
        expect(w.bottom).toBeLessThanOrEqual(area.bottom);
        if (status === 'clipped') {
          clipped += 1;
          expect(w.topCut || w.bottomCut).toBe(true);
        }
      }
    }
    expect(clipped).toBeGreaterThan(0);
  });
});

describe('reliableRefusal', () => {
  const done = { status: 'done', job: job(1, false, 'succeeded') } as AnalysisState;
  it('is the failed reliable-raters job’s message while the all-raters job succeeded', () => {
    expect(reliableRefusal(done, { status: 'failed', message: REFUSAL, job: job(2, true, 'failed') })).toBe(REFUSAL);
  });
  it('is null for a request that never reached a job, or while the all-raters job is not done', () => {
    expect(reliableRefusal(done, { status: 'failed', message: 'network down' })).toBeNull();
    expect(reliableRefusal({ status: 'starting' }, { status: 'failed', message: REFUSAL, job: job(2, true, 'failed') })).toBeNull();
    expect(reliableRefusal(done, { status: 'done', job: job(2, true, 'succeeded') })).toBeNull();
  });
});
