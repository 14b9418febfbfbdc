import { fireEvent, render, screen, within } from '@testing-library/react';
import type { TooltipItem } from 'chart.js';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { emptyAnalysisDoc } from '../emptyDoc';
import { ExplorerFigures } from '../ExplorerFigures';
import { testDoc } from '../testDoc';
import { gameNames, scenarioCodes } from '../transforms';
import type { AnalysisDoc } from '../analysisTypes';
import { MarginalsView } from './MarginalsFigure';
import { marginalsDoc } from './marginalsFixture';
import { MARGINALS_ABSENT, MARGINALS_NO_RATINGS } from './marginalsDoc';

interface ChartProps {
  type: string;
  data: { labels?: string[]; datasets: { label: string; data: { x: number | string; y: number }[]; showLine?: boolean; errorBars?: { status?: unknown[] } }[] };
  options: {
    scales: { x: { type: string; title: { text: string } }; y: { min: number; max: number; title: { text: string } } };
    plugins: { tooltip: { callbacks: { afterLabel: (t: TooltipItem<'line'>) => string[] } } };
  };
}

// jsdom has no canvas: the stand-in keeps what Chart.js would receive (data and options).
const drawn = vi.hoisted(() => ({ last: null as ChartProps | null }));
vi.mock('react-chartjs-2', () => ({
  Chart: (p: ChartProps & { 'aria-label'?: string }) => {
    drawn.last = p;
    return <canvas role="img" aria-label={p['aria-label']} data-datasets={p.data.datasets.length} />;
  },
}));

beforeEach(() => {
  drawn.last = null;
});

function chart(): ChartProps {
  if (!drawn.last) throw new Error('no chart drawn');
  return drawn.last;
}

const figure = (container: HTMLElement) => container.querySelector('figure[data-chart="marginals"]');
const ALL = ['racing', 'rpg'];

describe('MOS by factor level (marginal views)', () => {
  it('says in one line that a stored document predates the section, and draws nothing', () => {
    const { container } = render(<MarginalsView doc={testDoc()} games={ALL} />);
    expect(figure(container)).toBeNull();
    expect(container.querySelector('[data-marginals="absent"]')).toHaveTextContent(MARGINALS_ABSENT);
    const empty = render(<MarginalsView doc={emptyAnalysisDoc({ racing: 'fast' })} games={['racing']} />);
    expect(empty.container.querySelector('[data-marginals="absent"]')).toHaveTextContent(MARGINALS_NO_RATINGS);
  });

  it("draws the primary item's MOS per tested level, each game and all games pooled, on its scale", () => {
    const { container } = render(<MarginalsView doc={marginalsDoc()} games={ALL} />);
    const c = chart();
    expect(c.data.datasets.map((d) => d.label)).toEqual(['racing', 'rpg', 'all games']);
    expect(c.data.datasets.map((d) => d.data)).toEqual([
      [{ x: 0, y: 4 }, { x: 80, y: 2 }],
      [{ x: 0, y: 3.5 }, { x: 80, y: 2.5 }],
      [{ x: 0, y: 4.8 }, { x: 80, y: 2.4 }],
    ]);
    expect(c.options.scales.x).toMatchObject({ type: 'linear', title: { text: 'Delay, downstream (ms)' } });
    expect(c.options.scales.y).toMatchObject({ min: 1, max: 5, title: { text: 'MOS (overall)' } });
    expect(c.data.datasets[0]?.errorBars?.status).toEqual(['ok', 'n_too_small']);
    expect(figure(container)).toHaveAttribute('data-points', '6');
    // one item only would hide the item choice; two are offered
    expect(screen.getByLabelText('Item')).toHaveValue('overall');
    const note = container.querySelector('[data-figure-note="marginals"]');
    expect(note).toHaveTextContent('network factor, 2 levels as tested.');
    expect(note).toHaveTextContent('1 interval clipped to the scale (1–5)');
    expect(note).toHaveTextContent('1 value without a whisker: n too small for an interval');
    expect(note).toHaveTextContent('No view: Gaming hours: fewer than two distinct values among the ratings: no marginal view.');
    expect(figure(container)?.querySelector('figcaption')).toHaveTextContent('(all raters), for each game (racing, rpg) and all games pooled');
  });

  it('puts n ratings and n raters beside each MOS in the tooltip, and the status of an unusual interval', () => {
    render(<MarginalsView doc={marginalsDoc()} games={ALL} />);
    const c = chart();
    const tip = (datasetIndex: number, dataIndex: number) =>
      c.options.plugins.tooltip.callbacks.afterLabel({ datasetIndex, dataIndex, dataset: c.data.datasets[datasetIndex] } as unknown as TooltipItem<'line'>);
    expect(tip(0, 0)).toEqual(['n = 9 ratings, 3 raters']);
    expect(tip(0, 1)).toEqual(['n = 1 rating, 1 rater', 'n too small for an interval']);
    expect(tip(2, 0)).toEqual(['n = 18 ratings, 6 raters', 'interval clipped to the scale']);
  });

  it('shows a per-rater factor in bins as categories, with its missing count and the rater caution', () => {
    const { container } = render(<MarginalsView doc={marginalsDoc()} games={ALL} />);
    const factor = screen.getByLabelText('Factor');
    expect(within(factor).getAllByRole('group').map((g) => g.getAttribute('label'))).toEqual(['Network factors', 'Per-rater factors']);
    fireEvent.change(factor, { target: { value: 'Age' } });
    const c = chart();
    expect(c.options.scales.x.type).toBe('category');
    expect(c.data.labels).toEqual(['[21, 28]', '(28, 35]', '(35, 45]']);
    // the empty bin of rpg is not drawn
    expect(c.data.datasets.map((d) => d.data.length)).toEqual([3, 2, 3]);
    const note = container.querySelector('[data-figure-note="marginals"]');
    expect(note).toHaveTextContent('per-rater factor, 12 distinct values in 3 equal-count bins.');
    expect(note).toHaveTextContent('Ratings without a value of Age, in no point: 5 (racing), 2 (rpg), 7 (all games).');
    expect(note).toHaveTextContent("all of a rater's ratings fall in one point");
    fireEvent.change(factor, { target: { value: 'testbed' } });
    expect(chart().data.datasets.every((d) => d.showLine === false)).toBe(true);
  });

  it("switches the item: its own scale and MOS", () => {
    render(<MarginalsView doc={marginalsDoc()} games={ALL} />);
    fireEvent.change(screen.getByLabelText('Item'), { target: { value: 'fun' } });
    const c = chart();
    expect(c.options.scales.y).toMatchObject({ min: 0, max: 6, title: { text: 'MOS (fun)' } });
    expect(c.data.datasets[0]?.data[0]).toEqual({ x: 0, y: 5 });
  });

  it('follows the game filter: one game, one series', () => {
    const { container } = render(<MarginalsView doc={marginalsDoc()} games={['rpg']} />);
    expect(chart().data.datasets.map((d) => d.label)).toEqual(['rpg']);
    expect(figure(container)).toHaveAttribute('data-points', '2');
  });

  it('lists every factor in the table view: n, n raters, interval status and the missing count', () => {
    const { container } = render(<MarginalsView doc={marginalsDoc('reliable')} games={ALL} />);
    fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'table' } });
    expect(screen.queryByLabelText('Factor')).toBeNull();
    const table = screen.getByRole('table', { name: 'MOS of overall by level of every factor' });
    // 2 + 3 + 2 points × 3 series
    expect(table).toHaveAttribute('data-rows', '21');
    expect([...table.querySelectorAll('tbody')].map((b) => [b.dataset.factor, b.dataset.missing])).toEqual([
      ['ds_delay_ms', '0'],
      ['Age', '14'],
      ['testbed', '0'],
    ]);
    const age = table.querySelector('tbody[data-factor="Age"]');
    expect(age?.querySelector('th[scope="colgroup"]')).toHaveTextContent('Age: per-rater factor, 12 distinct values in 3 equal-count bins. Ratings without a value of Age, in no point: 5 (racing), 2 (rpg), 7 (all games).');
    const empty = table.querySelector('tr[data-game="rpg"][data-point="(35, 45]"]');
    expect(empty).toHaveAttribute('data-status', 'none');
    expect(empty).toHaveTextContent('no rating');
    const clipped = table.querySelector('tbody[data-factor="ds_delay_ms"] tr[data-game="all"][data-point="0"]');
    expect(clipped).not.toBeNull();
    expect(within(clipped as HTMLElement).getAllByRole('cell').map((td) => td.textContent)).toEqual(['all games', '18', '6', '4.80', '4.30 – 5.00', '1.00', 'interval clipped to the scale']);
    expect(within(clipped as HTMLElement).getByRole('rowheader')).toHaveTextContent('0 ms');
    expect(table.querySelector('tr[data-status="n_too_small"]')).toHaveTextContent('n too small for an interval');
    // every point with a MOS, over every factor
    expect(figure(container)).toHaveAttribute('data-points', '20');
    expect(figure(container)?.querySelector('figcaption')).toHaveTextContent('(reliable raters only)');
    // the table is the view itself: no collapsed copy of it below
    expect(figure(container)?.querySelector('details.figure__data')).toBeNull();
  });

  it("shows the warnings about this view and how its factors were read, not the others'", () => {
    const doc: AnalysisDoc = {
      ...marginalsDoc(),
      warnings: [
        { code: 'missing_values', message: 'missing values per column: Age 7', where: 'meta.dataset' },
        { code: 'no_interval', message: 'one point rests on one rating', where: 'marginals' },
        { code: 'thin_evidence', message: 'few ratings per condition', where: 'conditions' },
      ],
    };
    const { container } = render(<MarginalsView doc={doc} games={ALL} />);
    const list = container.querySelector('[data-figure-warnings]');
    expect(list).toHaveAttribute('data-figure-warnings', '2');
    expect([...(list?.querySelectorAll('li') ?? [])].map((li) => li.dataset.warning)).toEqual(['missing_values', 'no_interval']);
  });

  it('says why there is no chart when no factor has a view', () => {
    const doc = marginalsDoc();
    const section = doc.marginals;
    if (!section) throw new Error('the fixture has the section');
    const { container } = render(<MarginalsView doc={{ ...doc, marginals: { ...section, factors: [], series: [] } }} games={ALL} />);
    expect(figure(container)).toHaveAttribute('data-state', 'not-computable');
    expect(container.querySelector('[data-not-computable="marginals"]')).toHaveTextContent('no factor has two or more values among the ratings');
  });

  it('sits in the explorer under "Quality by factor", one line when the document lacks it', () => {
    const props = (doc: AnalysisDoc) => ({
      docs: { all: doc, reliable: null },
      primary: doc,
      games: gameNames(doc),
      scenarios: scenarioCodes(doc),
      group: 'all raters',
      paces: null,
      ratings: null,
      ratingsError: null,
      reliableSet: null,
    });
    const withSection = render(<ExplorerFigures {...props(marginalsDoc())} />);
    expect(figure(withSection.container)).toHaveAttribute('data-state', 'drawn');
    withSection.unmount();
    const without = render(<ExplorerFigures {...props(testDoc())} />);
    expect(figure(without.container)).toBeNull();
    expect(without.container.querySelectorAll('[data-marginals="absent"]')).toHaveLength(1);
  });
});
