import { render, screen, within } from '@testing-library/react';
import type { ChartData, ChartOptions, TooltipItem } from 'chart.js';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { ItemGameFigure } from './ItemGameFigure';
import { perGameMos } from './itemsDoc';
import type { ItemMos, ItemSection } from './itemsDoc';

interface Drawn {
  data: ChartData<'bar'>;
  options: ChartOptions<'bar'>;
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

const row = (scenario: string, game: string, n: number, mos: number, low: number | null, high: number | null, status?: ItemMos['ci95_status']): ItemMos => ({
  scenario,
  game,
  n,
  mos,
  ci95_low: low,
  ci95_high: high,
  ...(status ? { ci95_status: status } : {}),
});

/**
 * A 1–7 continuous item, hand-made: scenarios B, D2, D10 (natural order), a fast and a slow
 * game; the slow game has no rating of D10; pooled rows ("all") must not be drawn.
 * MOS of Racer in D2: ratings 2, 3, 4 → 3, SOS 1, t(0.975, 2) = 4.303 → 3 ± 2.484, i.e.
 * [0.516, 5.484], clipped by the analysis to [1, 5.484].
 */
const SECTION: ItemSection = {
  scale: { kind: 'continuous', min: 1, max: 7, step: null, labels: [] },
  n: 16,
  mos: [
    row('B', 'Chess', 3, 6.5, 5.8, 7, 'clipped'),
    row('B', 'Racer', 3, 6, 5.1, 6.9),
    row('B', 'all', 6, 6.25, 5.8, 6.7),
    row('D10', 'Racer', 1, 1.5, null, null, 'n_too_small'),
    row('D10', 'all', 1, 1.5, null, null, 'n_too_small'),
    row('D2', 'Chess', 3, 5, 4, 6),
    row('D2', 'Racer', 3, 3, 1, 5.484, 'clipped'),
    row('D2', 'all', 6, 4, 2.8, 5.2),
  ],
};

describe('perGameMos', () => {
  it('drops the pooled rows, orders scenarios naturally and games as the document lists them', () => {
    const { scenarios, series } = perGameMos(SECTION, 'all', ['Racer', 'Chess']);
    expect(scenarios).toEqual(['B', 'D2', 'D10']);
    expect(series.map((s) => s.game)).toEqual(['Racer', 'Chess']);
    expect(series[0]?.rows.map((r) => r?.mos ?? null)).toEqual([6, 3, 1.5]);
    expect(series[1]?.rows.map((r) => r?.mos ?? null)).toEqual([6.5, 5, null]);
    // without an order: first appearance
    expect(perGameMos(SECTION, 'all').series.map((s) => s.game)).toEqual(['Chess', 'Racer']);
  });
});

describe('ItemGameFigure', () => {
  it('draws one bar per game and scenario with its interval on the item’s scale, n in tooltip and table', () => {
    const { container } = render(<ItemGameFigure itemKey="input_quality" section={SECTION} paces={{ Racer: 'fast', Chess: 'slow' }} />);
    const figure = container.querySelector('figure[data-chart="item-mos-per-game"]');
    expect(figure).toHaveAttribute('data-state', 'drawn');
    expect(figure).toHaveAttribute('data-points', '5');
    const chart = lastChart();
    expect(chart.data.labels).toEqual(['B', 'D2', 'D10']);
    expect(chart.data.datasets.map((d) => d.label)).toEqual(['Racer (fast)', 'Chess (slow)']);
    expect(chart.data.datasets[0]?.data).toEqual([6, 3, 1.5]);
    expect(chart.data.datasets[1]?.data).toEqual([6.5, 5, null]);
    expect(chart.data.datasets[0]?.errorBars).toEqual({ low: [5.1, 1, null], high: [6.9, 5.484, null], status: ['ok', 'clipped', 'n_too_small'] });
    expect(chart.data.datasets[1]?.errorBars?.status).toEqual(['clipped', 'ok', null]);
    expect(chart.options.scales?.y).toMatchObject({ min: 1, max: 7, title: { text: 'MOS of input_quality' } });
    const afterLabel = chart.options.plugins?.tooltip?.callbacks?.afterLabel as (item: TooltipItem<'bar'>) => string;
    const item = (datasetIndex: number, dataIndex: number) => ({ datasetIndex, dataIndex, dataset: chart.data.datasets[datasetIndex] }) as unknown as TooltipItem<'bar'>;
    expect(afterLabel(item(0, 0))).toBe('n = 3');
    expect(afterLabel(item(0, 1))).toBe('n = 3\ninterval clipped to the scale');
    expect(afterLabel(item(0, 2))).toBe('n = 1\nn too small for an interval');

    const table = screen.getByRole('table', { name: 'MOS of input_quality per scenario and game' });
    const cells = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) => within(r).getAllByRole('cell').map((c) => c.textContent));
    expect(cells).toEqual([
      ['input_quality', 'B', 'Racer', 'fast', '3', '6', '5.100', '6.900', '95 % CI'],
      ['input_quality', 'D2', 'Racer', 'fast', '3', '3', '1', '5.484', 'interval clipped to the scale'],
      ['input_quality', 'D10', 'Racer', 'fast', '1', '1.500', '—', '—', 'n too small for an interval'],
      ['input_quality', 'B', 'Chess', 'slow', '3', '6.500', '5.800', '7', 'interval clipped to the scale'],
      ['input_quality', 'D2', 'Chess', 'slow', '3', '5', '4', '6', '95 % CI'],
    ]);
    expect(container.querySelector('figure')).toHaveTextContent('2 intervals clipped to the scale (1–7)');
  });

  it('is not computable with pooled rows only', () => {
    const pooled = { ...SECTION, mos: SECTION.mos.filter((r) => r.game === 'all') };
    const { container } = render(<ItemGameFigure itemKey="overall" section={pooled} />);
    expect(container.querySelector('figure[data-chart="item-mos-per-game"]')).toHaveAttribute('data-state', 'not-computable');
    expect(container.querySelector('[data-not-computable="item-mos-per-game"]')).toHaveTextContent('no overall rating per game yet');
    expect(charts).toHaveLength(0);
  });
});
