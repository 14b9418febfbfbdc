import { fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { GAMING_PRESET, OVERALL } from '../../participant/ratingItems.fixture';
import { ItemResults } from './ItemResults';
import type { ItemSection, ItemsSections } from './itemsDoc';

// jsdom has no canvas: a stand-in with the chart's accessible name and its series
vi.mock('react-chartjs-2', () => ({
  Chart: (p: { 'aria-label'?: string; data: { datasets: { label?: string }[] } }) => (
    <canvas role="img" aria-label={p['aria-label']} data-series={p.data.datasets.map((d) => d.label).join('|')} />
  ),
}));

const section = (scale: ItemSection['scale'], rows: [string, number, number, number][]): ItemSection => ({
  scale,
  n: 12,
  mos: rows.flatMap(([scenario, mos, low, high]) => [
    { scenario, game: 'all', n: 6, mos, ci95_low: low, ci95_high: high },
    { scenario, game: 'Kart Racer', n: 3, mos: mos + 0.5, ci95_low: null, ci95_high: null },
  ]),
  sos: { a: 0.213, bounds: [scale.min, scale.max] },
  gob_pow: { gob_pct: 41.7, pow_pct: 25, gob_from: 4, pow_to: 2 },
});

const [overall, input, video, acceptance] = GAMING_PRESET;
if (!overall || !input || !video || !acceptance) throw new Error('fixture');

const doc: ItemsSections = {
  items: GAMING_PRESET.map((i) => ({ ...i, n: 12 })),
  per_item: {
    overall: section(overall.scale, [['B', 4.5, 4.1, 4.9], ['D1', 2.25, 1.8, 2.7]]),
    input_quality: section(input.scale, [['D1', 3.1, 2.5, 3.7], ['B', 6.2, 5.9, 6.5]]),
    video_quality: section(video.scale, [['B', 6, 5.5, 6.5]]),
    acceptance: section(acceptance.scale, [['B', 0.9, 0.7, 1]]),
  },
  item_correlations: {
    pairs: [
      {
        items: ['overall', 'input_quality'],
        conditions: { pearson: { r: 0.93, p: 0.01, n: 5 }, spearman: { r: 0.9, p: 0.04, n: 5 } },
        ratings: { spearman: { r: 0.71, p: 0.001, n: 30 } },
      },
      {
        items: ['overall', 'video_quality'],
        conditions: { pearson: { r: null, p: null, n: 2 }, spearman: { r: null, p: null, n: 2 } },
        ratings: { spearman: { r: 0.4, p: 0.03, n: 30 } },
      },
    ],
  },
  response_times: { overall: { n: 30, p10: 1200, median: 3400, p90: 9100 } },
};

describe('ItemResults', () => {
  it('shows the chosen item’s pooled MOS with CIs and SOS on its own scale', () => {
    render(<ItemResults doc={{ ...doc, meta: { games: { 'Kart Racer': 'fast' } }, fast_raters: [{ rater_id: 'P007', n: 10, median_ms: 640, share_fast: 0.8 }] }} />);
    const select = screen.getByLabelText('Item');
    expect(within(select).getAllByRole('option').map((o) => o.getAttribute('value'))).toEqual(['overall', 'input_quality', 'video_quality', 'acceptance']);
    let table = screen.getByRole('table', { name: 'MOS of overall per scenario' });
    // a document without ci95_status: the status derived (both intervals inside 1–5)
    expect(within(table).getAllByRole('row').slice(1).map((r) => r.textContent)).toEqual(['B64.504.10 – 4.9095 % CI', 'D162.251.80 – 2.7095 % CI']);

    fireEvent.change(select, { target: { value: 'input_quality' } });
    table = screen.getByRole('table', { name: 'MOS of input_quality per scenario' });
    expect(within(table).getByRole('row', { name: /^B/ })).toHaveTextContent('6.205.90 – 6.50');
    expect(screen.getByTestId('item-scale')).toHaveTextContent('Scale continuous from 1 to 7 · 12 ratings · SOS a = 0.213 (bounds 1 and 7)');
    // the chosen item per scenario and game (its pooled rows left out), the game with its pace
    const perGame = screen.getByRole('img', { name: 'Bar chart: MOS of input_quality per scenario and game' });
    expect(perGame).toHaveAttribute('data-series', 'Kart Racer (fast)');
    const perGameRows = within(screen.getByRole('table', { name: 'MOS of input_quality per scenario and game' })).getAllByRole('row').slice(1);
    expect(perGameRows.map((r) => r.textContent)).toEqual(['input_qualityBKart Racerfast36.700——n too small for an interval', 'input_qualityD1Kart Racerfast33.600——n too small for an interval']);

    const correlations = screen.getByRole('table', { name: 'Item correlations' });
    expect(within(correlations).getByRole('row', { name: /overall × input_quality/ })).toHaveTextContent('0.93 (n = 5)0.90 (n = 5)0.71 (n = 30)');
    expect(within(correlations).getByRole('row', { name: /overall × video_quality/ })).toHaveTextContent('— (n = 2)');
    expect(within(screen.getByRole('table', { name: 'Response times' })).getByRole('row', { name: /overall/ })).toHaveTextContent('301.23.49.1');
    expect(screen.getByTestId('fast-raters')).toHaveTextContent('P007 (median 0.6 s, 80 % fast)');
  });

  it('stays away for a single-item study or a document from before rating items', () => {
    const { container, rerender } = render(<ItemResults doc={{ items: [OVERALL], per_item: {} }} />);
    expect(container).toBeEmptyDOMElement();
    rerender(<ItemResults doc={{ meta: {} }} />);
    expect(container).toBeEmptyDOMElement();
  });
});
