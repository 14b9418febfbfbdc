import { fireEvent, render, screen, within } from '@testing-library/react';
import type { ChartData, ChartOptions, TooltipItem } from 'chart.js';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { GAMING_PRESET } from '../../participant/ratingItems.fixture';
import { ItemCorrelationFigure } from './ItemCorrelationFigure';
import type { ItemPair, ItemSection, ItemsSections, ScenarioItemMos } from './itemsDoc';

interface Drawn {
  data: ChartData<'scatter'>;
  options: ChartOptions<'scatter'>;
  'aria-label': string;
}

// jsdom has no canvas: the stand-in keeps what Chart.js would receive (datasets, options)
const charts = vi.hoisted(() => [] as Drawn[]);
vi.mock('react-chartjs-2', () => ({
  Chart: (p: Drawn) => {
    charts.push(p);
    return <canvas role="img" aria-label={p['aria-label']} />;
  },
}));

afterEach(() => {
  charts.length = 0;
});

const lastChart = (): Drawn => {
  const chart = charts.at(-1);
  if (!chart) throw new Error('no chart drawn');
  return chart;
};

const [overall, input, video] = GAMING_PRESET;
if (!overall || !input || !video) throw new Error('fixture');
// overall: ACR 1..5; input_quality: continuous 1..7
const emptySection = (scale: ItemSection['scale']): ItemSection => ({ scale, n: 0, mos: [] });

const pair = (a: string, b: string, r: number | null, rho: number | null, n: number): ItemPair => ({
  items: [a, b],
  conditions: { pearson: { r, p: null, n }, spearman: { r: rho, p: null, n } },
  ratings: { spearman: { r: null, p: null, n: 0 } },
});

const MOS: ScenarioItemMos[] = [
  { scenario: 'B', mos: { overall: 4.5, input_quality: 6.25 } },
  { scenario: 'D1', mos: { overall: 3.125, input_quality: 4.5 } },
  { scenario: 'D2', mos: { overall: 1.75, input_quality: 2 } },
];

/** A hand-made document: 3 scenarios, 2 items (overall, input_quality). */
type Doc = ItemsSections & { meta: object; item_correlations: { pairs: ItemPair[]; mos?: ScenarioItemMos[] } };
const makeDoc = (mos: ScenarioItemMos[] | undefined, pairs: ItemPair[], primary?: string): Doc => ({
  meta: primary ? { primary_item: primary } : {},
  items: [overall, input],
  per_item: { overall: emptySection(overall.scale), input_quality: emptySection(input.scale) },
  item_correlations: mos ? { pairs, mos } : { pairs },
});

const csvRows = () =>
  within(screen.getByRole('table', { name: /^MOS of .* per scenario$/ }))
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell').map((c) => c.textContent));

describe('ItemCorrelationFigure', () => {
  it('draws each scenario at (MOS of item A, MOS of item B) on the items’ scales, r and ρ in the caption', () => {
    const { container } = render(<ItemCorrelationFigure sections={makeDoc(MOS, [pair('overall', 'input_quality', 0.998, 1, 3)])} />);
    const figure = container.querySelector('figure[data-chart="item-correlation"]');
    expect(figure).toHaveAttribute('data-state', 'drawn');
    expect(figure).toHaveAttribute('data-points', '3');
    const chart = lastChart();
    expect(chart.data.datasets[0]?.data).toEqual([
      { x: 4.5, y: 6.25 },
      { x: 3.125, y: 4.5 },
      { x: 1.75, y: 2 },
    ]);
    expect(chart.options.scales?.x).toMatchObject({ min: 1, max: 5 });
    expect(chart.options.scales?.y).toMatchObject({ min: 1, max: 7 });
    const label = chart.options.plugins?.tooltip?.callbacks?.label;
    expect(label?.call({} as never, { datasetIndex: 0, dataIndex: 1 } as TooltipItem<'scatter'>)).toBe('D1: overall 3.13, input_quality 4.50');
    expect(csvRows()).toEqual([
      ['B', 'overall', '4.500', 'input_quality', '6.250'],
      ['D1', 'overall', '3.125', 'input_quality', '4.500'],
      ['D2', 'overall', '1.750', 'input_quality', '2'],
    ]);
    expect(container.querySelector('figcaption')).toHaveTextContent('Pearson r = 1.00, n = 3; Spearman ρ = 1.00, n = 3.');
  });

  it('starts at the first pair of the primary item and switches pairs with the selector', () => {
    const mos = MOS.map((row, i) => ({ ...row, mos: { ...row.mos, video_quality: [5, null, 3][i] ?? null } }));
    const pairs = [pair('overall', 'input_quality', 0.99, 1, 3), pair('input_quality', 'video_quality', null, null, 2), pair('overall', 'video_quality', null, null, 2)];
    const sections = { ...makeDoc(mos, pairs, 'video_quality'), items: [overall, input, video] };
    const { container } = render(<ItemCorrelationFigure sections={sections} />);
    const select = screen.getByLabelText('Item pair');
    expect(select).toHaveValue('input_quality|video_quality');
    // video_quality has no MOS in D1: two points
    expect(lastChart().data.datasets[0]?.data).toEqual([
      { x: 6.25, y: 5 },
      { x: 2, y: 3 },
    ]);
    expect(container.querySelector('figcaption')).toHaveTextContent('Pearson r = — (needs ≥ 3 scenarios that vary), n = 2');

    fireEvent.change(select, { target: { value: 'overall|input_quality' } });
    expect(select).toHaveValue('overall|input_quality');
    expect(lastChart().data.datasets[0]?.data).toEqual(MOS.map((row) => ({ x: row.mos.overall, y: row.mos.input_quality })));
    expect(csvRows().map((r) => r[0])).toEqual(['B', 'D1', 'D2']);
  });

  it('is not computable without a pair, with fewer than 2 common scenarios, or without the MOS table', () => {
    const cases: [Doc, string][] = [
      [makeDoc(MOS, []), 'no pair of rating items to correlate'],
      [makeDoc([{ scenario: 'B', mos: { overall: 4.5, input_quality: 6.25 } }, { scenario: 'D1', mos: { overall: 3, input_quality: null } }], [pair('overall', 'input_quality', null, null, 1)]), 'fewer than 2 scenarios rated on both overall and input_quality'],
      [makeDoc(undefined, [pair('overall', 'input_quality', null, null, 0)]), 'this analysis predates the per-scenario item MOS'],
    ];
    for (const [sections, reason] of cases) {
      const { container, unmount } = render(<ItemCorrelationFigure sections={sections} />);
      const figure = container.querySelector('figure[data-chart="item-correlation"]');
      expect(figure).toHaveAttribute('data-state', 'not-computable');
      expect(figure).toHaveAttribute('data-points', '0');
      expect(container.querySelector('[data-not-computable="item-correlation"]')).toHaveTextContent(reason);
      unmount();
    }
    expect(charts).toHaveLength(0);
  });
});
