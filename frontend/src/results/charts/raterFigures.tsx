/** Rater figures: intra-rater consistency (fig. 4.2), inter-rater agreement (fig. 4.3), SOS (fig. 4.4). */
import type { ChartData, ChartOptions } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import type { AnalysisDoc } from '../analysisTypes';
import { isTable41 } from '../factors';
import type { Cell } from '../csv';
import { FIGURE_WHERE, warningsFor } from '../evidence';
import { STATUS_TEXT } from '../participants';
import { intraRaterCdf } from '../screening';
import { factorLabel, interRater, round, sosPoints } from '../transforms';
import { fmt, useChartRef } from './common';
import { DataTable, Figure } from './Figure';
import { colour } from './setup';

// --- fig. 4.2 ---------------------------------------------------------------------------------

/** "delay only (B, D1–D3)" for table 4.1's groups; else the group's name and its scenarios. */
export function groupLabel(doc: AnalysisDoc, group: string): string {
  // the fixed wording only where the groups are table 4.1's (other designs reuse the names)
  const fixed = isTable41(doc) ? GROUP_LABEL[group] : undefined;
  if (fixed) return fixed;
  const codes = Object.keys(doc.reliability.scenario_groups[group] ?? {});
  const name = /^(ds|us|both)_/.test(group) ? factorLabel(group, doc) : group.replace(/_/g, ' ');
  return codes.length ? `${name} (${codes.join(', ')})` : name;
}

export function IntraRaterFigure({ doc }: { doc: AnalysisDoc }) {
  const { ref, png } = useChartRef();
  const data = intraRaterCdf(doc);
  const groups = Object.keys(doc.reliability.scenario_groups);
  const table41 = isTable41(doc);
  // the signed rule: a reliable rater's scores fall as the impairment rises (ρ < −cut-off)
  const line = data.signed ? -data.cutoff : data.cutoff;
  const chartData: ChartData<'line'> = {
    datasets: [
      {
        label: data.signed ? 'Raters: CDF of ρ' : 'Raters: CDF of |ρ|',
        data: data.points.map((p) => ({ x: p.x, y: p.p })),
        stepped: 'before' as const,
        borderColor: colour(0),
        backgroundColor: colour(0),
        pointRadius: 2,
      },
      {
        label: data.signed ? `Cut-off ρ = −${data.cutoff}` : `Cut-off |ρ| = ${data.cutoff}`,
        data: [
          { x: line, y: 0 },
          { x: line, y: 1 },
        ],
        borderColor: '#a12a1f',
        borderDash: [4, 4],
        pointRadius: 0,
      },
    ],
  };
  const options: ChartOptions<'line'> = {
    maintainAspectRatio: false,
    scales: {
      x: {
        type: 'linear',
        min: data.signed ? -1 : 0,
        max: 1,
        title: { display: true, text: data.signed ? "Spearman ρ of a rater's scores against the impairment" : "|Spearman ρ| of a rater's scores against the impairment" },
      },
      y: { min: 0, max: 1, title: { display: true, text: 'Share of raters' } },
    },
    plugins: { legend: { position: 'bottom' } },
  };
  const header = ['rater_id', 'rho', 'n_ratings', 'p_random_pass', 'cumulative_share', 'status', 'reason'];
  const rows: Cell[][] = data.points.map((p) => [p.rater, fmt(p.rho), p.n_ratings, fmt(p.p_random_pass, 4), fmt(p.p), STATUS_TEXT[p.status], p.reason]);
  const reliable = data.points.filter((p) => p.status === 'reliable').length;
  return (
    <Figure
      id="intra-rater-cdf"
      reference="Fig. 4.2"
      title="Intra-rater reliability"
      caption={
        <>
          CDF of each rater&apos;s {data.signed ? 'ρ' : '|ρ|'} (
          {table41
            ? 'scores against delay in B, D1–D3 and against loss in B, L1, L2'
            : `scores against the level within each scenario group: ${groups.map((g) => groupLabel(doc, g)).join('; ') || 'none found'}`}
          ).{' '}
          {data.signed
            ? `A rater is reliable when ρ < −${data.cutoff} (scores fall as the impairment rises) and a rater scoring at random on the same design would pass with probability ≤ 0.01 (p_random_pass); otherwise not assessable, with the reason.`
            : `Raters above the cut-off ${data.cutoff} count as reliable.`}{' '}
          Reliable: {reliable} of {data.points.length} ({Math.round(data.shareReliable * 100)} %)
          {data.excluded > 0 ? `; ${data.excluded} not assessable — no computable ρ — not shown` : ''}.
        </>
      }
      points={data.points.length}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-2-intra-rater-cdf"
      unavailable={data.points.length ? null : (doc.notes?.['reliability.intra'] ?? 'no rater has a computable ρ: needs a scenario group that varies one factor alone, rated with different scores')}
      warnings={warningsFor(doc, FIGURE_WHERE.intra)}
      table={<DataTable label="Intra-rater reliability per rater" header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="line" data={chartData} options={options} role="img" aria-label="CDF of the intra-rater correlation" />
      </div>
    </Figure>
  );
}

// --- fig. 4.3 ---------------------------------------------------------------------------------

const GROUP_LABEL: Record<string, string> = { delay_only: 'delay only (B, D1–D3)', loss_only: 'loss only (B, L1, L2)', all: 'all scenarios' };

export function InterRaterFigure({ doc, games }: { doc: AnalysisDoc; games: string[] }) {
  const { ref, png } = useChartRef();
  const data = interRater(doc, games);
  const series = [...games, ...(games.length > 1 ? ['all'] : [])];
  const chartData: ChartData<'bar'> = {
    labels: data.groups.map((g) => groupLabel(doc, g)),
    datasets: series.map((game, i) => {
      const rows = data.groups.map((g) => data.rows.find((r) => r.game === game && r.group === g));
      return {
        label: game === 'all' ? 'all games' : game,
        data: rows.map((r) => r?.mean ?? null) as number[],
        backgroundColor: game === 'all' ? '#8a939f' : colour(i),
        errorBars: { low: rows.map((r) => r?.q25 ?? null), high: rows.map((r) => r?.q75 ?? null) },
      };
    }),
  };
  const options: ChartOptions<'bar'> = {
    maintainAspectRatio: false,
    scales: { y: { min: -1, max: 1, title: { display: true, text: 'Mean pairwise Spearman ρ' } } },
    plugins: { legend: { position: 'bottom' } },
  };
  const header = ['game', 'group', 'scenarios', 'n_raters', 'mean', 'sd', 'q25', 'median', 'q75'];
  const rows: Cell[][] = data.rows
    .filter((r) => series.includes(r.game))
    .map((r) => [r.game, r.group, r.scenarios, r.n_raters, fmt(r.mean), fmt(r.sd), fmt(r.q25), fmt(r.median), fmt(r.q75)]);
  return (
    <Figure
      id="inter-rater"
      reference="Fig. 4.3"
      title="Inter-rater agreement per scenario group"
      caption={<>Mean Spearman ρ between every pair of raters of the same game; whiskers span the 25 %–75 % quantiles of the pairs.</>}
      points={rows.filter((r) => r[4] !== null).length}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-3-inter-rater"
      unavailable={rows.some((r) => r[4] !== null) ? null : (doc.notes?.['reliability.inter'] ?? 'needs ≥ 2 raters per game')}
      warnings={warningsFor(doc, FIGURE_WHERE.inter)}
      table={<DataTable label="Inter-rater agreement" header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="bar" data={chartData} options={options} role="img" aria-label="Bar chart: inter-rater agreement" />
      </div>
    </Figure>
  );
}

// --- fig. 4.4 ---------------------------------------------------------------------------------

export function SosFigure({ doc, games, group }: { doc: AnalysisDoc; games: string[]; group: string }) {
  const { ref, png } = useChartRef();
  const data = sosPoints(doc, games);
  const chartData: ChartData<'scatter' | 'line'> = {
    datasets: [
      ...games.map((game, i) => ({
        type: 'scatter' as const,
        label: game,
        data: data.points.filter((p) => p.game === game).map((p) => ({ x: p.mos, y: p.sos })),
        backgroundColor: colour(i),
        borderColor: colour(i),
        pointRadius: 4,
      })),
      {
        type: 'line' as const,
        label: `SOS hypothesis, a = ${round(data.a, 3)}`,
        data: data.curve.map((p) => ({ x: p.mos, y: p.sos })),
        borderColor: '#1c2430',
        pointRadius: 0,
        borderWidth: 1.5,
      },
    ],
  };
  const options: ChartOptions<'scatter'> = {
    maintainAspectRatio: false,
    scales: {
      x: { type: 'linear', min: 1, max: 5, title: { display: true, text: 'MOS' } },
      y: { min: 0, max: 2, title: { display: true, text: 'SOS (standard deviation of the scores)' } },
    },
    plugins: { legend: { position: 'bottom' } },
  };
  const header = ['game', 'scenario', 'n', 'mos', 'sos', 'sos_hypothesis'];
  const rows: Cell[][] = data.points.map((p) => [p.game, p.scenario, p.n, fmt(p.mos), fmt(p.sos), data.a === null ? null : fmt(Math.sqrt(Math.max(0, data.a * (-p.mos * p.mos + 6 * p.mos - 5))))]);
  return (
    <Figure
      id="sos"
      reference="Fig. 4.4"
      title="SOS over MOS with the SOS hypothesis"
      caption={
        <>
          Each point is one scenario × game condition ({group}); the curve is SOS² = a·(−MOS² + 6·MOS − 5) fitted by least
          squares: <strong>a = {round(data.a, 3)}</strong> (all raters {round(doc.sos_hypothesis.all_raters.a, 3)}
          {doc.sos_hypothesis.reliable_raters ? `, reliable raters ${round(doc.sos_hypothesis.reliable_raters.a, 3)}` : ''}).
        </>
      }
      points={data.points.length}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-4-sos"
      unavailable={data.points.length ? null : (doc.notes?.sos_hypothesis ?? 'no condition has ≥ 2 ratings yet')}
      note={data.a === null && data.points.length ? `The SOS hypothesis is not fitted yet: ${doc.notes?.sos_hypothesis ?? 'too few conditions'}.` : null}
      table={<DataTable label="SOS and MOS per condition" header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="scatter" data={chartData as ChartData<'scatter'>} options={options} role="img" aria-label="Scatter plot: SOS over MOS" />
      </div>
    </Figure>
  );
}
