/** Raters of the subject model: bias against inconsistency, marked by their ITU-T P.913 status. */
import type { ChartData, ChartOptions, PointStyle } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { FIGURE_WHERE, warningsFor } from '../evidence';
import { P913_TEXT, p913Statuses, raterPoints, raterTooltip, subjectModelReason } from '../subjectModel';
import type { P913Status, RaterPoint } from '../subjectModel';
import { fmt, useChartRef } from './common';
import { DataTable, Figure } from './Figure';
import { colour } from './setup';

/** Colour and marker per status: told apart by shape too, not by colour alone. */
const STYLE: Record<P913Status, { colour: string; marker: PointStyle }> = {
  reliable: { colour: colour(0), marker: 'circle' },
  unreliable: { colour: colour(1), marker: 'triangle' },
  not_assessable: { colour: '#6b7480', marker: 'rect' },
  unscreened: { colour: '#1c2430', marker: 'crossRot' },
};
const ORDER: P913Status[] = ['reliable', 'unreliable', 'not_assessable', 'unscreened'];

const HEADER = [
  'rater_id',
  'n',
  'model_status',
  'bias',
  'bias_se',
  'bias_ci95_low',
  'bias_ci95_high',
  'inconsistency',
  'inconsistency_se',
  'inconsistency_ci95_low',
  'inconsistency_ci95_high',
  'block',
  'p913_status',
  'p913_reason',
  'left_out_because',
];

/** Every rater of the model, fitted or not (the CSV and the data table). */
function csvRows(doc: AnalysisDoc, leftOut: Map<string, string>): Cell[][] {
  const statuses = p913Statuses(doc);
  return (doc.subject_model?.raters ?? []).map((r) => {
    const p = statuses.get(r.rater_id);
    return [
      r.rater_id,
      r.n ?? null,
      r.status ?? null,
      fmt(r.bias),
      fmt(r.bias_se),
      fmt(r.bias_ci95_low),
      fmt(r.bias_ci95_high),
      fmt(r.inconsistency),
      fmt(r.inconsistency_se),
      fmt(r.inconsistency_ci95_low),
      fmt(r.inconsistency_ci95_high),
      r.block ?? null,
      p?.status ?? null,
      p?.reason ?? null,
      leftOut.get(r.rater_id) ?? null,
    ];
  });
}

export function RaterBiasFigure({ doc }: { doc: AnalysisDoc }) {
  const { ref, png } = useChartRef();
  const { points, leftOut, screened } = raterPoints(doc);
  const groups = ORDER.map((status) => ({ status, points: points.filter((p) => p.p913 === status) })).filter((g) => g.points.length > 0);
  const chartData: ChartData<'scatter'> = {
    datasets: groups.map((g) => ({
      label: `${P913_TEXT[g.status]} (${g.points.length})`,
      data: g.points.map((p) => ({ x: p.inconsistency, y: p.bias })),
      backgroundColor: STYLE[g.status].colour,
      borderColor: STYLE[g.status].colour,
      pointStyle: STYLE[g.status].marker,
      pointRadius: 5,
      pointHoverRadius: 7,
      errorBars: { low: g.points.map((p) => p.biasLow), high: g.points.map((p) => p.biasHigh) },
    })),
  };
  const ends = points.flatMap((p) => [p.biasLow, p.biasHigh]).filter((v): v is number => v !== null);
  const pointAt = (dataset: number, index: number): RaterPoint | undefined => groups[dataset]?.points[index];
  const options: ChartOptions<'scatter'> = {
    maintainAspectRatio: false,
    scales: {
      x: { type: 'linear', min: 0, title: { display: true, text: "Inconsistency υ (SD of the rater's noise, rating points)" } },
      // the whiskers are drawn outside Chart.js' data range: the axis spans them too
      y: { suggestedMin: Math.min(0, ...ends), suggestedMax: Math.max(0, ...ends), title: { display: true, text: 'Bias Δ (0 = the average rater)' } },
    },
    plugins: {
      legend: { position: 'bottom', labels: { usePointStyle: true } },
      tooltip: {
        callbacks: {
          label: (ctx) => {
            const p = pointAt(ctx.datasetIndex, ctx.dataIndex);
            return p ? raterTooltip(p) : '';
          },
        },
      },
    },
  };
  const leftOutMap = new Map(leftOut.map((l) => [l.id, l.reason]));
  const rows = csvRows(doc, leftOutMap);
  const model = doc.subject_model;
  const blocks = new Set(points.map((p) => p.block)).size;
  const counts = groups.map((g) => `${g.points.length} ${P913_TEXT[g.status].replace('P.913 ', '')}`).join(', ');
  const notConverged = model?.status === 'not_converged' && model.convergence;
  const note = [
    leftOut.length ? `Left out (${leftOut.length}): ${leftOut.map((l) => `${l.id} — ${l.reason}`).join('; ')}.` : '',
    notConverged ? `The fit stopped after ${model.convergence?.iterations} iterations without converging: these are the last estimates.` : '',
    blocks > 1 ? 'The design falls apart into blocks that share no rater: biases compare within a block only (see the tooltip).' : '',
    screened ? '' : 'This analysis has no P.913 screening: run it again to mark the raters.',
  ].filter(Boolean);
  return (
    <Figure
      id="rater-bias"
      reference="Subject model"
      title="Raters: bias vs inconsistency"
      caption={
        <>
          Each point is a rater of the subject model rating = quality + bias + inconsistency · noise (ITU-T P.910 annex,
          maximum likelihood as sureal; all ratings): the bias Δ is how far the rater scores above (+) or below (−) the
          average rater, the inconsistency υ how much their scores scatter around that. Whiskers: 95 % CI of the bias.
          Colour and marker: the rater&apos;s status under the ITU-T P.913 screening (rejected when r1 &lt;{' '}
          {doc.reliability.screening?.p913?.threshold ?? 0.75} and r2 &lt; {doc.reliability.screening?.p913?.r2_threshold ?? 0.8},
          repeated until nobody is rejected){counts ? `: ${counts}` : ''}.
        </>
      }
      points={points.length}
      csv={{ header: HEADER, rows }}
      png={png}
      filename="raters-bias-inconsistency"
      unavailable={points.length ? null : subjectModelReason(doc)}
      warnings={warningsFor(doc, FIGURE_WHERE.raterBias)}
      note={note.length ? note.join(' ') : null}
      table={<DataTable label="Bias and inconsistency per rater" header={HEADER} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="scatter" data={chartData} options={options} role="img" aria-label="Scatter plot: bias against inconsistency per rater" />
      </div>
    </Figure>
  );
}
