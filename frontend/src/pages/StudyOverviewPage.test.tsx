import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';

import { App } from '../App';
import { mockFetch } from '../test/fetchMock';
import { exampleStudy, secondStudy, summaryOf } from '../test/fixtures';

function renderAt(path = '/') {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <App />
    </MemoryRouter>,
  );
}

/** Text of each cell of each body row. */
function bodyRows(table: HTMLElement): string[][] {
  const body = table.querySelector('tbody');
  if (!body) throw new Error('table has no tbody');
  return Array.from(body.rows, (row) => Array.from(row.cells, (cell) => cell.textContent));
}

const routes = {
  '/api/v1/studies/': { body: [summaryOf(exampleStudy)] },
  '/api/v1/studies/1/': { body: exampleStudy },
};

describe('StudyOverviewPage', () => {
  it('shows a loading state, then the study with its games and scenarios tables', async () => {
    mockFetch(routes);
    renderAt();

    expect(screen.getByRole('status')).toHaveTextContent('Loading studies…');

    expect(await screen.findByRole('heading', { level: 2, name: exampleStudy.title })).toBeInTheDocument();
    expect(screen.getByText(exampleStudy.description)).toBeInTheDocument();
    // One study only: no selector.
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();

    const games = screen.getByRole('table', { name: /^Games/ });
    expect(within(games).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Name', 'Pace class']);
    expect(bodyRows(games)).toEqual([
      ['Arena Shooter', 'fast'],
      ['Kart Racer', 'medium'],
      ['Card Tactics', 'slow'],
    ]);
    expect(within(games).getByText('fast')).toHaveClass('badge', 'badge--pace-fast');
    expect(within(games).getByText('slow')).toHaveClass('badge--pace-slow');

    const scenarios = screen.getByRole('table', { name: /^Network scenarios/ });
    const groupHeaders = scenarios.querySelectorAll('th[scope="colgroup"]');
    expect(Array.from(groupHeaders, (th) => [th.textContent, th.getAttribute('colspan')])).toEqual([
      ['Upstream (client→server)', '3'],
      ['Downstream (server→client)', '3'],
    ]);
    expect(within(scenarios).getAllByRole('columnheader').map((th) => th.textContent)).toEqual([
      'Code',
      'Label',
      'Upstream (client→server)',
      'Downstream (server→client)',
      'Delay (ms)',
      'Jitter (ms)',
      'Loss (%)',
      'Delay (ms)',
      'Jitter (ms)',
      'Loss (%)',
    ]);
    expect(bodyRows(scenarios)).toEqual([
      ['B', 'No impairmentBaseline', '0', '0', '0', '0', '0', '0'],
      ['D1', 'Moderate delay', '25', '2', '0', '50', '5', '0.5'],
      ['L1', 'Lossy downlink', '10', '1', '0.25', '15', '3', '2'],
    ]);

    // Exactly the baseline row is marked.
    const marked = within(scenarios).getAllByText('Baseline');
    expect(marked).toHaveLength(1);
    expect(marked[0]?.closest('tr')).toHaveClass('is-baseline');
    expect(within(scenarios).getByText('Moderate delay').closest('tr')).not.toHaveClass('is-baseline');
  });

  it('shows the API error with the HTTP status when the study list fails', async () => {
    mockFetch({
      '/api/v1/studies/': { status: 503, statusText: 'Service Unavailable', body: { detail: 'Database unavailable' } },
    });
    renderAt();

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Could not load studies: HTTP 503 Service Unavailable: Database unavailable',
    );
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('shows an error when the selected study cannot be loaded, and retries', async () => {
    const fetchMock = mockFetch({
      '/api/v1/studies/': routes['/api/v1/studies/'],
      '/api/v1/studies/1/': { status: 500, statusText: 'Internal Server Error', body: { detail: 'Boom' } },
    });
    renderAt();

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Could not load the study: HTTP 500 Internal Server Error: Boom',
    );

    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => {
      expect(fetchMock.mock.calls.filter(([url]) => url === '/api/v1/studies/1/')).toHaveLength(2);
    });
  });

  it('shows the empty state when there is no study', async () => {
    mockFetch({ '/api/v1/studies/': { body: [] } });
    renderAt();

    expect(await screen.findByText(/load the example with/)).toHaveTextContent(
      'No study yet — load the example with make demo.',
    );
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('offers a selector when several studies exist, showing the first by default', async () => {
    mockFetch({
      '/api/v1/studies/': { body: [summaryOf(exampleStudy), summaryOf(secondStudy)] },
      '/api/v1/studies/1/': { body: exampleStudy },
      '/api/v1/studies/2/': { body: secondStudy },
    });
    renderAt();

    expect(await screen.findByRole('heading', { level: 2, name: exampleStudy.title })).toBeInTheDocument();
    const select = screen.getByRole('combobox', { name: 'Study' });
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual([
      exampleStudy.title,
      secondStudy.title,
    ]);
    expect(select).toHaveValue('1');

    fireEvent.change(select, { target: { value: '2' } });

    expect(await screen.findByRole('heading', { level: 2, name: secondStudy.title })).toBeInTheDocument();
    expect(bodyRows(screen.getByRole('table', { name: /^Games/ }))).toEqual([['Puzzle Drop', 'slow']]);
  });

  it('opens the study named in ?study=', async () => {
    mockFetch({
      '/api/v1/studies/': { body: [summaryOf(exampleStudy), summaryOf(secondStudy)] },
      '/api/v1/studies/2/': { body: secondStudy },
    });
    renderAt('/?study=2');

    expect(await screen.findByRole('heading', { level: 2, name: secondStudy.title })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Study' })).toHaveValue('2');
  });

  it('warns when ratings of the study were taken on a dry-run agent', async () => {
    mockFetch({
      '/api/v1/studies/': { body: [summaryOf(exampleStudy)] },
      '/api/v1/studies/1/': { body: { ...exampleStudy, ratings_by_backend: { 'dry-run': 10, netlink: 20 } } },
    });
    renderAt();
    const banner = await screen.findByTestId('study-dry-run-banner');
    expect(banner).toHaveTextContent('10 of 30 ratings were taken on a dry-run agent');
  });

  it('shows no dry-run banner when every rating came from a real agent', async () => {
    mockFetch({
      '/api/v1/studies/': { body: [summaryOf(exampleStudy)] },
      '/api/v1/studies/1/': { body: { ...exampleStudy, ratings_by_backend: { netlink: 20 } } },
    });
    renderAt();
    expect(await screen.findByRole('heading', { level: 2, name: exampleStudy.title })).toBeInTheDocument();
    expect(screen.queryByTestId('study-dry-run-banner')).toBeNull();
  });
});
