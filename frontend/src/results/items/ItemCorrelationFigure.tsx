/**
 * Item against item (issue 15, "does input quality drive overall quality under delay?"): per
 * scenario (all games pooled) the MOS of item A (x) against the MOS of item B (y) for a chosen
 * pair, each axis on its item's scale, with the pair's Pearson r and Spearman ρ over the
 * scenario MOS (`item_correlations`, qoe_analysis.stats.item_correlations) in the caption.
 */
import { useId, useState } from 'react';
import type { ChartData, ChartOptions } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import { useChartRef } from '../charts/common';
import { DataTable, Figure } from '../charts/Figure';
import { colour } from '../charts/setup';
import type { Cell } from '../csv';
import type { Correlation, ItemPair, ItemsSections, ScenarioItemMos } from './itemsDoc';

export interface ItemPoint {
  scenario: string;
  x: number;
  y: number;
}

const pairKey = (pair: ItemPair) => pair.items.join('|');

/** The pair shown first: the first one involving the primary item, else the first pair. */
export function defaultPair(pairs: readonly ItemPair[], primary: string | null | undefined): ItemPair | undefined {
  return pairs.find((p) => primary !== null && primary !== undefined && p.items.includes(primary)) ?? pairs[0];
}

/** The scenarios both items of the pair rated: (MOS of A, MOS of B), in the document's order. */
export function pairPoints(rows: readonly ScenarioItemMos[], [a, b]: ItemPair['items']): ItemPoint[] {
  return rows.flatMap((row) => {
    const x = row.mos[a];
    const y = row.mos[b];
    return typeof x === 'number' && typeof y === 'number' ? [{ scenario: row.scenario, x, y }] : [];
  });
}

const stat = (name: string, c: Correlation) => `${name} = ${c.r === null ? '— (needs ≥ 3 scenarios that vary)' : c.r.toFixed(2)}, n = ${c.n}`;

const HEADER = ['scenario', 'item_x', 'mos_x', 'item_y', 'mos_y'];

export function ItemCorrelationFigure({ sections: doc }: { sections: ItemsSections }) {
  const pairs = doc.item_correlations?.pairs ?? [];
  const rows = doc.item_correlations?.mos;
  const [chosen, setChosen] = useState<string | null>(null);
  const selectId = useId();
  const { ref, png } = useChartRef();
  const pair = pairs.find((p) => pairKey(p) === chosen) ?? defaultPair(pairs, doc.meta?.primary_item);
  const [a, b] = pair?.items ?? ['', ''];
  const points = pair && rows ? pairPoints(rows, pair.items) : [];
  const scaleOf = (key: string) => doc.items.find((i) => i.key === key)?.scale;
  const axis = (key: string) => {
    const scale = scaleOf(key);
    return { type: 'linear' as const, min: scale?.min, max: scale?.max, title: { display: true, text: `MOS of ${key}` } };
  };
  const chartData: ChartData<'scatter'> = {
    datasets: [
      {
        label: `${a} × ${b}`,
        data: points.map((p) => ({ x: p.x, y: p.y })),
        backgroundColor: colour(0),
        borderColor: colour(0),
        pointRadius: 5,
        pointHoverRadius: 7,
      },
    ],
  };
  const options: ChartOptions<'scatter'> = {
    maintainAspectRatio: false,
    scales: { x: axis(a), y: axis(b) },
    plugins: {
      legend: { display: false },
      tooltip: {
        callbacks: {
          label: (ctx) => {
            const p = points[ctx.dataIndex];
            return p ? `${p.scenario}: ${a} ${p.x.toFixed(2)}, ${b} ${p.y.toFixed(2)}` : '';
          },
        },
      },
    },
  };
  const csvRows: Cell[][] = points.map((p) => [p.scenario, a, p.x, b, p.y]);
  const unavailable =
    pairs.length === 0
      ? 'no pair of rating items to correlate'
      : rows === undefined
        ? 'this analysis predates the per-scenario item MOS: run it again'
        : points.length < 2
          ? `fewer than 2 scenarios rated on both ${a} and ${b}`
          : null;
  return (
    <Figure
      id="item-correlation"
      reference="Rating items"
      title="Item against item: MOS per scenario"
      caption={
        <>
          Each point is a scenario (all games pooled): the MOS of {a || 'item A'} (x) against the MOS of {b || 'item B'} (y),
          each axis on its item&apos;s scale. Over the scenario MOS:{' '}
          {pair ? `${stat('Pearson r', pair.conditions.pearson)}; ${stat('Spearman ρ', pair.conditions.spearman)}.` : '—'}
        </>
      }
      points={points.length}
      csv={{ header: HEADER, rows: csvRows }}
      png={png}
      filename={`item-correlation-${a}-${b}`}
      unavailable={unavailable}
      controls={
        pairs.length > 0 ? (
          <div className="field">
            <label htmlFor={selectId}>Item pair</label>
            <select
              id={selectId}
              value={pair ? pairKey(pair) : ''}
              onChange={(e) => {
                setChosen(e.target.value);
              }}
            >
              {pairs.map((p) => (
                <option key={pairKey(p)} value={pairKey(p)}>
                  {p.items[0]} × {p.items[1]}
                </option>
              ))}
            </select>
          </div>
        ) : null
      }
      table={<DataTable label={`MOS of ${a} and ${b} per scenario`} header={HEADER} rows={csvRows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="scatter" data={chartData} options={options} role="img" aria-label={`Scatter plot: MOS of ${a} against MOS of ${b} per scenario`} />
      </div>
    </Figure>
  );
}
