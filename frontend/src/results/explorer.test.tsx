import { fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { FactorHeatmapFigure } from './charts/FactorHeatmapFigure';
import { FigureBoundary } from './charts/FigureBoundary';
import { TreeFigure } from './charts/figures';
import { ExplorerFigures } from './ExplorerFigures';
import type { ExplorerProps } from './ExplorerFigures';
import { emptyFixture, gridFixture, oneRaterPerGameFixture, oneSessionFixture, table41Fixture } from './fixtures';
import type { Fixture } from './fixtures';
import { gameNames, scenarioCodes } from './transforms';
import { fmt } from './charts/common';
import { testDoc } from './testDoc';

function props(f: Fixture, ratings = true): ExplorerProps {
  return {
    docs: { all: f.doc, reliable: null },
    primary: f.doc,
    games: gameNames(f.doc),
    scenarios: scenarioCodes(f.doc),
    group: 'all raters',
    paces: null,
    ratings: ratings ? f.ratings : null,
    ratingsError: null,
    reliableSet: null,
  };
}

// jsdom has no canvas: Chart.js cannot draw there. The stand-in renders what the chart
// receives, so the tests see the data handed to Chart.js (datasets and their points).
vi.mock('react-chartjs-2', () => ({
  Chart: (p: { type: string; data: { datasets: { data: unknown[] }[] }; 'aria-label'?: string }) => (
    <canvas
      role="img"
      aria-label={p['aria-label']}
      data-type={p.type}
      data-datasets={p.data.datasets.length}
      data-drawn={p.data.datasets.reduce((n, d) => n + d.data.length, 0)}
    />
  ),
}));

/** A number as the data table shows it (3 decimals, integers bare, "—" for none). */
function shown(v: number | null): string {
  const x = fmt(v);
  return x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(3);
}

const figure = (container: HTMLElement, id: string) => container.querySelector(`figure[data-chart="${id}"]`);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the explorer on a 3 × 3 grid', () => {
  it('draws the factor heatmap with 9 cells and the generic figures', () => {
    const { container } = render(<ExplorerFigures {...props(gridFixture())} />);
    const table = screen.getByRole('table', { name: 'MOS by Downstream delay (ms) and Upstream loss (%)' });
    expect(table).toHaveAttribute('data-cells', '9');
    expect(table.querySelectorAll('td[data-cell]')).toHaveLength(9);
    expect(within(table).queryByText('not tested')).toBeNull();
    expect(figure(container, 'factor-heatmap')).toHaveAttribute('data-points', '9');
    // 3 levels × (2 games + all games pooled), others held at baseline
    expect(figure(container, 'mos-by-factor')).toHaveAttribute('data-points', '9');
    expect(figure(container, 'mos-by-factor')?.querySelector('canvas')).toHaveAttribute('data-datasets', '3');
    expect(figure(container, 'mos-by-factor')?.querySelector('canvas')).toHaveAttribute('data-drawn', '9');
    expect(container.querySelector('[data-state="error"]')).toBeNull();
    expect(figure(container, 'mos-by-factor')?.querySelector('figcaption')).toHaveTextContent(/held at baseline \(scenario B:/);
    // no table-4.1 figures, no layout switch
    expect(figure(container, 'm1-m2-heatmap')).toBeNull();
    expect(screen.queryByLabelText('Layout')).toBeNull();
    expect(figure(container, 'rating-pairs')).not.toBeNull();
    expect(figure(container, 'participants')).toHaveAttribute('data-points', String(gridFixture().ratings.length));
    expect(screen.getByRole('table', { name: 'Participants' }).querySelectorAll('tr[data-status="unreliable"]')).toHaveLength(1);
    // the points are drawn; the part that is not computable says why (the document's note)
    expect(figure(container, 'sos')).toHaveAttribute('data-state', 'drawn');
    expect(container.querySelector('[data-figure-note="sos"]')).toHaveTextContent('The SOS hypothesis is not fitted yet: needs conditions with at least 2 ratings');
  });

  it('switches the hold mode and says so in the caption', () => {
    render(<ExplorerFigures {...props(gridFixture())} />);
    const fig = screen.getByRole('figure', { name: /MOS against one factor/ });
    fireEvent.change(within(fig).getByLabelText('Other factors'), { target: { value: 'averaged' } });
    expect(fig.querySelector('figcaption')).toHaveTextContent(/averaged over the tested combinations/);
    expect(fig).toBeInTheDocument();
    // averaged: still 3 levels × 3 series, the chart gets them
    expect(fig.querySelector('canvas')).toHaveAttribute('data-drawn', '9');
    fireEvent.change(within(fig).getByLabelText('Factor'), { target: { value: 'us_ge_p_pct' } });
    expect(fig.querySelector('canvas')).toHaveAttribute('data-drawn', '6');
  });

  it('shows the analysis\' MOS and CIs, pooled over every game by the analysis', () => {
    const { doc } = gridFixture();
    const { container } = render(<ExplorerFigures {...props(gridFixture())} />);
    const pair = doc.mos_by_factor?.pairs.find((p) => p.factors.join() === 'ds_delay_ms,us_loss_pct' && p.game === 'all' && p.hold === 'baseline');
    const table = screen.getByRole('table', { name: 'MOS by Downstream delay (ms) and Upstream loss (%)' });
    expect(table).toHaveAttribute('data-game', 'all');
    expect(pair?.cells).toHaveLength(9);
    for (const c of pair?.cells ?? []) expect(table.querySelector(`td[data-cell="${String(c.a)},${String(c.b)}"]`)).toHaveAttribute('data-mos', String(fmt(c.mos)));
    expect(figure(container, 'factor-heatmap')?.querySelector('figcaption')).toHaveTextContent('for all games pooled');
    // the line figure's table: the analysis' points, CIs included
    const line = doc.mos_by_factor?.single.find((s) => s.factor === 'ds_delay_ms' && s.game === 'all' && s.hold === 'baseline');
    const rows = within(screen.getByRole('table', { name: 'MOS against one factor' })).getAllByRole('row').filter((r) => r.querySelector('td')?.textContent === 'all');
    expect(rows.map((r) => [...r.querySelectorAll('td')].slice(3, 6).map((td) => td.textContent))).toEqual(line?.points.map((p) => [shown(p.mos), shown(p.ci95_low), shown(p.ci95_high)]));
  });

  it('a subset of the games: one grid and one series per selected game, and the caption says so', () => {
    const f = gridFixture();
    f.doc.meta.games = { ...f.doc.meta.games, soccer: 'slow' };
    const { container } = render(<ExplorerFigures {...props(f)} games={['racing', 'rpg']} />);
    expect(screen.getByRole('table', { name: 'MOS by Downstream delay (ms) and Upstream loss (%), racing' })).toHaveAttribute('data-game', 'racing');
    expect(screen.getByRole('table', { name: 'MOS by Downstream delay (ms) and Upstream loss (%), rpg' })).toHaveAttribute('data-game', 'rpg');
    expect(figure(container, 'factor-heatmap')?.querySelector('figcaption')).toHaveTextContent('for each selected game apart (racing, rpg;');
    expect(figure(container, 'mos-by-factor')?.querySelector('canvas')).toHaveAttribute('data-datasets', '2');
    expect(figure(container, 'mos-by-factor')?.querySelector('figcaption')).toHaveTextContent('for each game (racing, rpg), not pooled');
  });

  it('shows untested pairs of another factor pair as such', () => {
    const { doc } = gridFixture();
    render(<FactorHeatmapFigure doc={doc} games={['racing']} group="all raters" />);
    fireEvent.change(screen.getByLabelText('Rows'), { target: { value: 'us_ge_p_pct' } });
    const table = screen.getByRole('table', { name: /MOS by Downstream delay/ });
    expect(table).toHaveAttribute('data-cells', '6');
    expect(within(table).getAllByText('not tested')).toHaveLength(3);
  });
});

describe('the explorer on pilot data', () => {
  it.each([
    ['one rater per game', oneRaterPerGameFixture()],
    ['one session', oneSessionFixture()],
  ])('%s: no crash, the reasons are shown', (_, f) => {
    const { container } = render(<ExplorerFigures {...props(f)} />);
    expect(container.querySelector('[data-state="error"]')).toBeNull();
    expect(container.querySelector('[data-not-computable="inter-rater"]')).toHaveTextContent('Not computable yet: needs ≥ 2 raters per game');
    expect(container.querySelector('[data-not-computable="decision-tree"]')).toHaveTextContent('needs ≥ 2 raters per game');
    expect(container.querySelector('[data-not-computable="intra-rater-cdf"]')).toHaveTextContent('needs a scenario group');
    expect(container.querySelector('[data-not-computable="weights"]')).not.toBeNull();
    expect(container.querySelector('[data-not-computable="thresholds"]')).not.toBeNull();
    // what can be drawn is drawn
    expect(figure(container, 'mos-per-scenario')).toHaveAttribute('data-state', 'drawn');
    expect(screen.getByRole('table', { name: /MOS by Downstream delay/ })).toHaveAttribute('data-cells', '9');
    expect(screen.getAllByText('not assessable').length).toBeGreaterThan(0);
    expect(container.querySelector('[data-figure-note="participants"]')).toHaveTextContent('needs ≥ 2 raters who rated the same conditions');
  });

  it('an empty study: every figure says why, nothing fails', () => {
    const { container } = render(<ExplorerFigures {...props(emptyFixture())} />);
    expect(container.querySelector('[data-state="error"]')).toBeNull();
    expect(container.querySelector('[data-not-computable="mos-per-scenario"]')).toHaveTextContent('no ratings yet');
    expect(container.querySelector('[data-not-computable="participants"]')).toHaveTextContent('no participant has rated yet');
    expect(container.querySelectorAll('figure[data-state="drawn"]')).toHaveLength(0);
  });
});

describe('the table 4.1 layout', () => {
  it('keeps the dissertation figures and offers the generic layout', () => {
    const f = table41Fixture();
    f.doc.tree = testDoc().tree;
    const { container } = render(<ExplorerFigures {...props(f)} />);
    for (const id of ['mos-per-scenario', 'mos-over-delay', 'mos-over-loss', 'm1-m2-heatmap', 'a1-a2-cdf', 'intra-rater-cdf', 'inter-rater', 'sos', 'weights', 'decision-tree']) {
      expect(figure(container, id), id).not.toBeNull();
    }
    expect(screen.getByText('MOS over delay (B, D1–D3)')).toBeInTheDocument();
    // 4 levels × 3 games
    expect(figure(container, 'mos-over-delay')).toHaveAttribute('data-points', '12');
    expect(screen.getByRole('table', { name: 'M1 vs M2 ratings, racing' })).toBeInTheDocument();
    expect(screen.getByText(/scores against delay in B, D1–D3 and against loss in B, L1, L2/)).toBeInTheDocument();
    expect(container.querySelector('[data-state="error"]')).toBeNull();
    fireEvent.change(screen.getByLabelText('Layout'), { target: { value: 'generic' } });
    expect(figure(container, 'm1-m2-heatmap')).toBeNull();
    // stored before the analysis wrote mos_by_factor: the factor figures ask for a re-run
    for (const id of ['mos-by-factor', 'factor-heatmap']) {
      expect(figure(container, id)).toHaveAttribute('data-state', 'not-computable');
      expect(container.querySelector(`[data-not-computable="${id}"]`)).toHaveTextContent('needs a re-run of the analysis');
    }
    expect(container.querySelector('[data-state="error"]')).toBeNull();
    expect(figure(container, 'rating-pairs')).not.toBeNull();
  });
});

describe('error boundary', () => {
  it('one failing figure shows its error, the others stay', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    function Broken(): never {
      throw new Error('boom');
    }
    render(
      <>
        <FigureBoundary id="broken" title="Broken figure">
          <Broken />
        </FigureBoundary>
        <p>still here</p>
      </>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('This figure could not be drawn (boom)');
    expect(screen.getByText('still here')).toBeInTheDocument();
  });
});

describe('decision tree view', () => {
  it('shows rule, n and share per node; collapses, zooms and downloads SVG', () => {
    const create = vi.fn(() => 'blob:tree');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: create, revokeObjectURL: vi.fn() }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const { container } = render(<TreeFigure doc={testDoc()} />);
    expect(container.querySelectorAll('g[data-node]')).toHaveLength(5);
    const root = container.querySelector('g[data-node="n"]');
    expect(root).toHaveTextContent('all ratings');
    expect(root).toHaveTextContent('n = 40 · 63 % acceptable');
    expect(container.querySelector('g[data-node="nL"]')).toHaveTextContent('ds_loss_pct <= 0.65');
    const inner = container.querySelector('g[data-node="nL"]');
    if (!inner) throw new Error('node nL is drawn');
    fireEvent.click(inner);
    expect(container.querySelectorAll('g[data-node]')).toHaveLength(3);
    expect(container.querySelector('g[data-node="nL"]')).toHaveAttribute('data-collapsed', 'true');
    fireEvent.click(screen.getByRole('button', { name: 'Expand all' }));
    expect(container.querySelectorAll('g[data-node]')).toHaveLength(5);
    const viewport = container.querySelector('.tree-viewport');
    const before = Number(viewport?.getAttribute('data-zoom'));
    fireEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    expect(Number(viewport?.getAttribute('data-zoom'))).toBeCloseTo(before * 1.25);
    fireEvent.click(screen.getByRole('button', { name: 'Fit to width' }));
    expect(Number(viewport?.getAttribute('data-zoom'))).toBeCloseTo(before);
    fireEvent.click(screen.getByRole('button', { name: 'Download SVG' }));
    expect(create).toHaveBeenCalledTimes(1);
    expect(click).toHaveBeenCalledTimes(1);
    vi.unstubAllGlobals();
  });

  it('keeps its text styles out of the page (CSP: no inline <style>) but in the download', async () => {
    const create = vi.fn<(blob: Blob) => string>(() => 'blob:tree');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: create, revokeObjectURL: vi.fn() }));
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const { container } = render(<TreeFigure doc={testDoc()} />);
    expect(container.querySelector('svg.tree style')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Download SVG' }));
    const [blob] = create.mock.calls[0] ?? [];
    if (!blob) throw new Error('the SVG was downloaded');
    const svg = await blob.text();
    expect(svg).toMatch(/^<svg[^>]*><style[^>]*>text\{font-family:/);
    expect(container.querySelector('svg.tree style')).toBeNull();
    vi.unstubAllGlobals();
  });

  it('says why there is no tree', () => {
    const { container } = render(<TreeFigure doc={oneRaterPerGameFixture().doc} />);
    expect(container.querySelector('[data-not-computable="decision-tree"]')).toHaveTextContent('Not computable yet: needs ≥ 2 raters per game');
  });
});
