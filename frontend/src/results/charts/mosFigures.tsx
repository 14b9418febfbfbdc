/** MOS figures: per scenario (fig. 4.5), over one factor (figs. 4.6/4.7), rating CDFs (fig. 4.9). */
import type { ChartData, ChartOptions } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { FIGURE_WHERE, intervalLegend, intervalText, mosScale, warningsFor } from '../evidence';
import { factorLabel, mosOverFactor, mosPerScenario, ratingCdfs } from '../transforms';
import { useChartRef, mosAxis, count, fmt, INTERVAL_TOOLTIP } from './common';
import { DataTable, Figure } from './Figure';
import { colour } from './setup';

// --- fig. 4.5 -------------------------------------------------------------------------------

export function MosPerScenarioFigure({ doc, games, scenarios, group }: { doc: AnalysisDoc; games: string[]; scenarios: string[]; group: string }) {
  const { ref, png } = useChartRef();
  const data = mosPerScenario(doc, games, scenarios);
  const chartData: ChartData<'bar'> = {
    labels: data.scenarios,
    datasets: data.series.map((s, i) => ({
      label: s.game,
      data: s.mos as number[],
      backgroundColor: colour(i),
      errorBars: { low: s.low, high: s.high, status: s.status },
    })),
  };
  const scale = mosScale(doc);
  const options: ChartOptions<'bar'> = {
    maintainAspectRatio: false,
    scales: { y: mosAxis(scale), x: { title: { display: true, text: 'Scenario' } } },
    plugins: { legend: { position: 'bottom' }, tooltip: INTERVAL_TOOLTIP },
  };
  const header = ['scenario', 'game', 'n', 'mos', 'ci95_low', 'ci95_high', 'ci95_status'];
  const rows: Cell[][] = data.series.flatMap((s) =>
    data.scenarios.map((sc, j) => [sc, s.game, s.n[j], fmt(s.mos[j]), fmt(s.low[j]), fmt(s.high[j]), intervalText(s.status[j] ?? null) || null]),
  );
  return (
    <Figure
      id="mos-per-scenario"
      reference="Fig. 4.5"
      title="MOS per scenario and game"
      caption={
        <>
          Mean opinion score ({scale.min} … {scale.max}) with 95 % confidence intervals, {group}.
        </>
      }
      warnings={warningsFor(doc, FIGURE_WHERE.mosPerScenario)}
      note={intervalLegend(data.series.flatMap((s) => s.status), scale)}
      points={data.series.reduce((sum, s) => sum + count(s.mos), 0)}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-5-mos-per-scenario"
      unavailable={data.series.some((x) => count(x.mos) > 0) ? null : 'no ratings yet: run a session first'}
      table={<DataTable label="MOS per scenario and game" header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="bar" data={chartData} options={options} aria-label="Bar chart: MOS per scenario and game" role="img" />
      </div>
    </Figure>
  );
}

// --- figs. 4.6 / 4.7 --------------------------------------------------------------------------

export function MosOverFactorFigure({
  docs,
  games,
  group,
}: {
  docs: { all: AnalysisDoc | null; reliable: AnalysisDoc | null };
  games: string[];
  /** A scenario group of the analysis (`reliability.scenario_groups`), e.g. table 4.1's `delay_only`. */
  group: string;
}) {
  const { ref, png } = useChartRef();
  const data = mosOverFactor(docs, group, games);
  const factor = group === 'delay_only' ? 'delay' : group === 'loss_only' ? 'loss' : group;
  const table41 = factor === 'delay' || factor === 'loss';
  const doc = docs.all ?? docs.reliable;
  const chartData: ChartData<'line'> = {
    datasets: data.series.map((s) => {
      const i = games.indexOf(s.game);
      return {
        label: `${s.game} — ${s.group === 'all' ? 'all raters' : 'reliable raters'}`,
        data: s.points.flatMap((p) => (p.mos === null ? [] : [{ x: p.x, y: p.mos }])),
        borderColor: colour(i),
        backgroundColor: colour(i),
        borderDash: s.group === 'reliable' ? [6, 4] : [],
        pointStyle: s.group === 'reliable' ? 'triangle' : 'circle',
        pointRadius: 4,
        errorBars: {
          low: s.points.filter((p) => p.mos !== null).map((p) => p.low),
          high: s.points.filter((p) => p.mos !== null).map((p) => p.high),
          status: s.points.filter((p) => p.mos !== null).map((p) => p.status),
        },
      };
    }),
  };
  const scale = mosScale(doc ?? null);
  const options: ChartOptions<'line'> = {
    maintainAspectRatio: false,
    scales: {
      x: {
        type: 'linear',
        title: { display: true, text: factor === 'delay' ? 'One-way delay per direction (ms)' : factor === 'loss' ? 'Packet loss per direction (%)' : factorLabel(group, doc) },
      },
      y: mosAxis(scale),
    },
    plugins: { legend: { position: 'bottom' }, tooltip: INTERVAL_TOOLTIP },
  };
  const header = ['game', 'raters', 'scenario', factor === 'delay' ? 'delay_ms' : factor === 'loss' ? 'loss_pct' : 'level', 'n', 'mos', 'ci95_low', 'ci95_high', 'ci95_status'];
  const rows: Cell[][] = data.series.flatMap((s) => s.points.map((p) => [s.game, s.group, p.scenario, p.x, p.n, fmt(p.mos), fmt(p.low), fmt(p.high), intervalText(p.status) || null]));
  const id = factor === 'delay' ? 'mos-over-delay' : factor === 'loss' ? 'mos-over-loss' : `mos-over-${group}`;
  const codes = data.levels.map((l) => l.scenario).join(', ');
  const points = data.series.reduce((sum, s) => sum + count(s.points.map((p) => p.mos)), 0);
  return (
    <Figure
      id={id}
      reference={factor === 'delay' ? 'Fig. 4.6' : factor === 'loss' ? 'Fig. 4.7' : 'Group'}
      title={factor === 'delay' ? 'MOS over delay (B, D1–D3)' : factor === 'loss' ? 'MOS over packet loss (B, L1, L2)' : `MOS over ${factorLabel(group, doc)} (${codes})`}
      caption={
        <>
          MOS with 95 % confidence intervals for the {factor === 'delay' ? 'delay-only' : factor === 'loss' ? 'loss-only' : `"${group}" group's`} scenarios, per game;
          solid lines: all raters, dashed: reliable raters only.
        </>
      }
      unavailable={data.levels.length === 0 ? `the analysis found no scenario group "${group}" in this design` : points === 0 ? 'no ratings of these scenarios yet' : null}
      warnings={warningsFor(doc ?? null, FIGURE_WHERE.mosOverFactor)}
      note={intervalLegend(data.series.flatMap((s) => s.points.map((p) => p.status)), scale)}
      points={points}
      csv={{ header, rows }}
      png={png}
      filename={table41 ? (factor === 'delay' ? 'fig-4-6-mos-over-delay' : 'fig-4-7-mos-over-loss') : `mos-over-${group}`}
      table={<DataTable label={`MOS over ${factor}`} header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="line" data={chartData} options={options} role="img" aria-label={`Line chart: MOS over ${factor}`} />
      </div>
    </Figure>
  );
}

// --- fig. 4.9 ---------------------------------------------------------------------------------

const A_LABEL: Record<string, string> = { A1: 'A1 (client→server impaired)', A2: 'A2 (server→client impaired)' };

/** CDFs of the ratings of two scenarios (table 4.1: A1 vs A2, fig. 4.9). */
export function CdfFigure({ doc, games, group, pair = ['A1', 'A2'] }: { doc: AnalysisDoc; games: string[]; group: string; pair?: [string, string] }) {
  const { ref, png } = useChartRef();
  const [first, second] = pair;
  const table41 = first === 'A1' && second === 'A2';
  const series = ratingCdfs(doc, games, pair);
  const chartData: ChartData<'line'> = {
    datasets: series.map((s) => {
      const i = games.indexOf(s.game);
      return {
        label: `${s.game} — ${(table41 ? A_LABEL[s.scenario] : undefined) ?? s.scenario}`,
        data: s.cdf.map((p, k) => ({ x: k + 1, y: p })),
        stepped: 'before' as const,
        borderColor: colour(i),
        backgroundColor: colour(i),
        borderDash: s.scenario === second ? [6, 4] : [],
        pointStyle: s.scenario === second ? 'triangle' : 'circle',
      };
    }),
  };
  const options: ChartOptions<'line'> = {
    maintainAspectRatio: false,
    scales: {
      x: { type: 'linear', min: 1, max: 5, ticks: { stepSize: 1 }, title: { display: true, text: 'Rating' } },
      y: { min: 0, max: 1, title: { display: true, text: 'P(rating ≤ x)' } },
    },
    plugins: { legend: { position: 'bottom' } },
  };
  const header = ['game', 'scenario', 'n', 'p_le_1', 'p_le_2', 'p_le_3', 'p_le_4', 'p_le_5'];
  const rows: Cell[][] = series.map((s) => [s.game, s.scenario, s.n, ...s.cdf.map((p) => fmt(p))]);
  return (
    <Figure
      id={table41 ? 'a1-a2-cdf' : 'scenario-cdf'}
      reference={table41 ? 'Fig. 4.9' : 'Compare'}
      title={table41 ? 'Asymmetric impairment: CDFs of the ratings of A1 vs A2' : `CDFs of the ratings of ${first} vs ${second}`}
      caption={<>Cumulative share of ratings up to each score ({group}). A curve that rises earlier means worse ratings.</>}
      points={series.length * 5}
      csv={{ header, rows }}
      png={png}
      filename={table41 ? 'fig-4-9-a1-a2-cdf' : `cdf-${first}-${second}`}
      unavailable={series.some((s) => s.n > 0) ? null : `no ratings of ${first} or ${second} yet`}
      table={<DataTable label={`CDF of the ratings of ${first} and ${second}`} header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="line" data={chartData} options={options} role="img" aria-label={`CDF of the ratings of ${first} and ${second}`} />
      </div>
    </Figure>
  );
}
