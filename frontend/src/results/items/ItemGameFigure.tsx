/**
 * One rating item per scenario and game (issue 35, item 5: the main comparison of a fast vs
 * slow study, for every item): grouped bars of the item's MOS per scenario, one bar per game
 * (with its pace class), 95 % t-CI whiskers on the item's own scale, n in the tooltip and the
 * table. The rows are the analysis' per-item condition table (`per_item[key].mos`,
 * qoe_analysis.stats.per_item: MOS ± t(0.975, n − 1)·SOS/√n per scenario × game, clipped to
 * the scale); nothing is recomputed here.
 */
import type { ChartData, ChartOptions, TooltipItem } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import { ALL_GAMES } from '../analysisTypes';
import { count, fmt, mosAxis, useChartRef } from '../charts/common';
import { DataTable, Figure } from '../charts/Figure';
import { colour, intervalTooltip } from '../charts/setup';
import type { Cell } from '../csv';
import { intervalLegend, intervalStatus, intervalText } from '../evidence';
import type { ScaleRange } from '../evidence';
import { perGameMos } from './itemsDoc';
import type { ItemSection } from './itemsDoc';

const HEADER = ['item', 'scenario', 'game', 'pace', 'n', 'mos', 'ci95_low', 'ci95_high', 'ci95_status'];

export function ItemGameFigure({ itemKey, section, paces = {} }: { itemKey: string; section: ItemSection; paces?: Record<string, string> }) {
  const { ref, png } = useChartRef();
  const scale: ScaleRange = { min: section.scale.min, max: section.scale.max, step: section.scale.step };
  const data = perGameMos(section, ALL_GAMES, Object.keys(paces));
  const gameLabel = (game: string) => (paces[game] ? `${game} (${paces[game]})` : game);
  const statuses = data.series.map((s) => s.rows.map((r) => (r ? intervalStatus(r, scale) : null)));
  const chartData: ChartData<'bar'> = {
    labels: data.scenarios,
    datasets: data.series.map((s, i) => ({
      label: gameLabel(s.game),
      data: s.rows.map((r) => r?.mos ?? null) as number[],
      backgroundColor: colour(i),
      errorBars: { low: s.rows.map((r) => r?.ci95_low ?? null), high: s.rows.map((r) => r?.ci95_high ?? null), status: statuses[i] ?? [] },
    })),
  };
  const nOf = (item: TooltipItem<'bar'>) => data.series[item.datasetIndex]?.rows[item.dataIndex]?.n;
  const options: ChartOptions<'bar'> = {
    maintainAspectRatio: false,
    scales: { y: mosAxis(scale, `MOS of ${itemKey}`), x: { title: { display: true, text: 'Scenario' } } },
    plugins: {
      legend: { position: 'bottom' },
      tooltip: { callbacks: { afterLabel: (item) => [`n = ${String(nOf(item) ?? 0)}`, intervalTooltip(item)].filter(Boolean).join('\n') } },
    },
  };
  const rows: Cell[][] = data.series.flatMap((s, i) =>
    s.rows.flatMap((r, j) =>
      r === null ? [] : [[itemKey, r.scenario, s.game, paces[s.game] ?? null, r.n, fmt(r.mos), fmt(r.ci95_low), fmt(r.ci95_high), intervalText(statuses[i]?.[j] ?? null) || null]],
    ),
  );
  const points = data.series.reduce((sum, s) => sum + count(s.rows.map((r) => r?.mos ?? null)), 0);
  return (
    <Figure
      id="item-mos-per-game"
      reference="Rating items"
      title={`MOS of ${itemKey} per scenario and game`}
      caption={
        <>
          Mean of the {itemKey} ratings ({scale.min} … {scale.max}) per scenario, one bar per game, with 95 % confidence intervals (t, clipped to the
          scale); n per bar in the tooltip and the table. All raters, training ratings left out.
        </>
      }
      note={intervalLegend(statuses.flat(), scale)}
      points={points}
      csv={{ header: HEADER, rows }}
      png={png}
      filename={`item-${itemKey}-mos-per-game`}
      unavailable={points > 0 ? null : `no ${itemKey} rating per game yet`}
      table={<DataTable label={`MOS of ${itemKey} per scenario and game`} header={HEADER} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="bar" data={chartData} options={options} role="img" aria-label={`Bar chart: MOS of ${itemKey} per scenario and game`} />
      </div>
    </Figure>
  );
}
