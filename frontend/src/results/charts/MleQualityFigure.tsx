/** Per condition: the MOS with its t-interval beside the subject model's quality ψ with its interval. */
import type { ChartData, ChartOptions } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { FIGURE_WHERE, intervalLegend, intervalText, mosScale, warningsFor } from '../evidence';
import type { IntervalStatus } from '../evidence';
import { conditionsLeftOut, qualityReason, qualityRows } from '../subjectModel';
import type { QualityRow } from '../subjectModel';
import { fmt, mosAxis, useChartRef } from './common';
import { DataTable, Figure } from './Figure';
import { colour } from './setup';

/** Half the gap between the two points of a condition on the category axis. */
const OFFSET = 0.17;
/** Above this many conditions the points shrink and the chart grows (rotated labels). */
const MANY = 24;

const HEADER = ['scenario', 'game', 'n', 'mos', 'mos_ci95_low', 'mos_ci95_high', 'mos_ci95_status', 'mle_quality', 'mle_quality_se', 'mle_ci95_low', 'mle_ci95_high', 'mle_ci95_status', 'mle_minus_mos', 'block'];

const label = (r: QualityRow) => `${r.scenario} · ${r.game}`;

/** A series of points at x = condition index + shift, only where the value exists. */
function series(rows: readonly QualityRow[], shift: number, value: (r: QualityRow) => [number | null, number | null, number | null, IntervalStatus | null]) {
  const kept = rows.flatMap((r, i) => {
    const [y, low, high, status] = value(r);
    return y === null ? [] : [{ x: i + shift, y, low, high, status }];
  });
  return { data: kept.map(({ x, y }) => ({ x, y })), errorBars: { low: kept.map((p) => p.low), high: kept.map((p) => p.high), status: kept.map((p) => p.status) } };
}

export function MleQualityFigure({ doc, games, scenarios }: { doc: AnalysisDoc; games: string[]; scenarios: string[] }) {
  const { ref, png } = useChartRef();
  const rows = qualityRows(doc, games, scenarios);
  const many = rows.length > MANY;
  const radius = many ? 3 : 5;
  const mos = series(rows, -OFFSET, (r) => [r.mos, r.mosLow, r.mosHigh, r.mosStatus]);
  const mle = series(rows, OFFSET, (r) => [r.quality, r.qualityLow, r.qualityHigh, r.qualityStatus]);
  const chartData: ChartData<'scatter'> = {
    datasets: [
      { label: 'MOS (95 % t-CI)', ...mos, backgroundColor: colour(0), borderColor: colour(0), pointStyle: 'circle', pointRadius: radius },
      { label: 'MLE quality ψ (95 % CI)', ...mle, backgroundColor: colour(1), borderColor: colour(1), pointStyle: 'rectRot', pointRadius: radius + 1 },
    ],
  };
  const scale = mosScale(doc);
  // ψ itself can lie beyond the scale (a condition only harsh raters saw): the axis spans
  // the scale and every ψ, never a whisker (they are clipped to the axis)
  const values = mle.data.map((p) => p.y);
  const axis = mosAxis({ min: Math.min(scale.min, Math.floor(Math.min(...values, scale.min))), max: Math.max(scale.max, Math.ceil(Math.max(...values, scale.max))), step: scale.step }, `Quality (${scale.min} … ${scale.max})`);
  const tick = (value: number | string) => {
    const i = Number(value);
    return Number.isInteger(i) && rows[i] ? label(rows[i]) : '';
  };
  const options: ChartOptions<'scatter'> = {
    maintainAspectRatio: false,
    scales: {
      x: {
        type: 'linear',
        min: -0.5,
        max: rows.length - 0.5,
        // one tick per condition (Chart.js would start the ticks at −0.5)
        afterBuildTicks: (axis) => {
          axis.ticks = rows.map((_, i) => ({ value: i }));
        },
        ticks: { autoSkip: false, callback: tick, maxRotation: 90 },
        grid: { display: false },
        title: { display: true, text: 'Condition (scenario · game)' },
      },
      y: axis,
    },
    plugins: {
      legend: { position: 'bottom', labels: { usePointStyle: true } },
      tooltip: {
        callbacks: {
          title: (items) => {
            const row = items[0] ? rows[Math.round(items[0].parsed.x ?? -1)] : undefined;
            return row ? label(row) : '';
          },
          label: (ctx) => {
            const bars = ctx.dataset.errorBars;
            const low = bars?.low[ctx.dataIndex];
            const high = bars?.high[ctx.dataIndex];
            const ci = typeof low === 'number' && typeof high === 'number' ? ` [${low.toFixed(2)}, ${high.toFixed(2)}]` : '';
            return `${ctx.datasetIndex === 0 ? 'MOS' : 'MLE quality'} ${(ctx.parsed.y ?? 0).toFixed(2)}${ci}`;
          },
          afterLabel: (ctx) => {
            const status = ctx.dataset.errorBars?.status?.[ctx.dataIndex] ?? null;
            return status === 'clipped' || status === 'n_too_small' ? intervalText(status) : '';
          },
        },
      },
    },
  };
  const csvRows: Cell[][] = rows.map((r) => [
    r.scenario,
    r.game,
    r.n,
    fmt(r.mos),
    fmt(r.mosLow),
    fmt(r.mosHigh),
    intervalText(r.mosStatus) || null,
    fmt(r.quality),
    fmt(r.qualitySe),
    fmt(r.qualityLow),
    fmt(r.qualityHigh),
    intervalText(r.qualityStatus) || null,
    r.quality !== null && r.mos !== null ? fmt(r.quality - r.mos) : null,
    r.block,
  ]);
  const leftOut = conditionsLeftOut(doc, rows);
  const shift = rows.filter((r) => r.quality !== null && r.mos !== null).map((r) => Math.abs((r.quality ?? 0) - (r.mos ?? 0)));
  const largest = shift.length ? Math.max(...shift) : null;
  const note = [
    leftOut.length ? `No quality estimate for ${leftOut.length} condition(s): ${leftOut.map((l) => `${l.id} — ${l.reason}`).join('; ')}.` : '',
    new Set(rows.filter((r) => r.quality !== null).map((r) => r.block)).size > 1 ? 'The design falls apart into blocks that share no rater: compare qualities within a block only (column block).' : '',
    doc.meta.reliable_only ? 'The MOS here is over the reliable raters only; the subject model uses all ratings.' : '',
    intervalLegend([...rows.map((r) => r.mosStatus), ...rows.map((r) => r.qualityStatus)], scale) ?? '',
  ].filter(Boolean);
  return (
    <Figure
      id="mle-quality"
      reference="Subject model"
      title="MLE quality beside MOS per condition"
      caption={
        <>
          For each condition (scenario × game): left, the MOS with its 95 % Student-t interval; right, the quality ψ of the
          subject model (maximum likelihood, ITU-T P.910 annex) with its 95 % interval from the Fisher information. ψ
          removes each rater&apos;s bias and weights consistent raters more, so it moves away from the MOS where the raters
          of a condition were unusually harsh, lenient or erratic
          {largest !== null ? ` (largest difference here: ${largest.toFixed(2)} points)` : ''}.
        </>
      }
      points={mos.data.length + mle.data.length}
      csv={{ header: HEADER, rows: csvRows }}
      png={png}
      filename="mle-quality-vs-mos"
      unavailable={mle.data.length ? null : qualityReason(doc)}
      warnings={warningsFor(doc, FIGURE_WHERE.mleQuality)}
      note={note.length ? note.join(' ') : null}
      table={<DataTable label="MOS and MLE quality per condition" header={HEADER} rows={csvRows} />}
    >
      <div className="chart-box" style={many ? { height: 460 } : undefined}>
        <ChartCanvas ref={ref as never} type="scatter" data={chartData} options={options} role="img" aria-label="Points with intervals: MOS and MLE quality per condition" />
      </div>
    </Figure>
  );
}
