import { useRef } from 'react';
import type { ChartData, ChartOptions } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import {
  factorLabel,
  interRater,
  intraRaterCdf,
  layoutTree,
  mosOverFactor,
  mosPerScenario,
  ratingCdfs,
  ratingPairs,
  round,
  sosPoints,
  splitLabel,
  thresholdRows,
  weightRows,
} from '../transforms';
import type { TidyRating } from '../transforms';
import { tablesToPng } from './canvasTable';
import { DataTable, Figure, HeadedTable, svgToPng } from './Figure';
import { colour } from './setup';
import type { Chart } from './setup';

type AnyChart = Chart<'bar' | 'line' | 'scatter'>;

function useChartRef() {
  const ref = useRef<AnyChart | null>(null);
  const png = () => ref.current?.toBase64Image('image/png', 1) ?? null;
  return { ref, png };
}

const MOS_AXIS = { min: 1, max: 5, title: { display: true, text: 'MOS' }, ticks: { stepSize: 1 } } as const;

function count(values: readonly (number | null)[]): number {
  return values.filter((v) => v !== null).length;
}

const fmt = (v: number | null | undefined, d = 3) => (v === null || v === undefined ? null : Number(v.toFixed(d)));

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
      errorBars: { low: s.low, high: s.high },
    })),
  };
  const options: ChartOptions<'bar'> = {
    maintainAspectRatio: false,
    scales: { y: MOS_AXIS, x: { title: { display: true, text: 'Scenario' } } },
    plugins: { legend: { position: 'bottom' } },
  };
  const header = ['scenario', 'game', 'n', 'mos', 'ci95_low', 'ci95_high'];
  const rows: Cell[][] = data.series.flatMap((s) => data.scenarios.map((sc, j) => [sc, s.game, s.n[j], fmt(s.mos[j]), fmt(s.low[j]), fmt(s.high[j])]));
  return (
    <Figure
      id="mos-per-scenario"
      reference="Fig. 4.5"
      title="MOS per scenario and game"
      caption={<>Mean opinion score (1 bad … 5 excellent) with 95 % confidence intervals, {group}.</>}
      points={data.series.reduce((sum, s) => sum + count(s.mos), 0)}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-5-mos-per-scenario"
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
  factor,
}: {
  docs: { all: AnalysisDoc | null; reliable: AnalysisDoc | null };
  games: string[];
  factor: 'delay' | 'loss';
}) {
  const { ref, png } = useChartRef();
  const group = factor === 'delay' ? 'delay_only' : 'loss_only';
  const data = mosOverFactor(docs, group, games);
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
        errorBars: { low: s.points.filter((p) => p.mos !== null).map((p) => p.low), high: s.points.filter((p) => p.mos !== null).map((p) => p.high) },
      };
    }),
  };
  const options: ChartOptions<'line'> = {
    maintainAspectRatio: false,
    scales: {
      x: {
        type: 'linear',
        title: { display: true, text: factor === 'delay' ? 'One-way delay per direction (ms)' : 'Packet loss per direction (%)' },
      },
      y: MOS_AXIS,
    },
    plugins: { legend: { position: 'bottom' } },
  };
  const header = ['game', 'raters', 'scenario', factor === 'delay' ? 'delay_ms' : 'loss_pct', 'n', 'mos', 'ci95_low', 'ci95_high'];
  const rows: Cell[][] = data.series.flatMap((s) => s.points.map((p) => [s.game, s.group, p.scenario, p.x, p.n, fmt(p.mos), fmt(p.low), fmt(p.high)]));
  const id = factor === 'delay' ? 'mos-over-delay' : 'mos-over-loss';
  return (
    <Figure
      id={id}
      reference={factor === 'delay' ? 'Fig. 4.6' : 'Fig. 4.7'}
      title={factor === 'delay' ? 'MOS over delay (B, D1–D3)' : 'MOS over packet loss (B, L1, L2)'}
      caption={
        <>
          MOS with 95 % confidence intervals for the {factor === 'delay' ? 'delay-only' : 'loss-only'} scenarios, per game;
          solid lines: all raters, dashed: reliable raters only.
        </>
      }
      points={data.series.reduce((sum, s) => sum + count(s.points.map((p) => p.mos)), 0)}
      csv={{ header, rows }}
      png={png}
      filename={factor === 'delay' ? 'fig-4-6-mos-over-delay' : 'fig-4-7-mos-over-loss'}
      table={<DataTable label={`MOS over ${factor}`} header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="line" data={chartData} options={options} role="img" aria-label={`Line chart: MOS over ${factor}`} />
      </div>
    </Figure>
  );
}

// --- fig. 4.8 ---------------------------------------------------------------------------------

export function HeatmapFigure({ ratings, games, raters, group }: { ratings: TidyRating[]; games: string[]; raters: ReadonlySet<string> | null; group: string }) {
  const maps = ratingPairs(ratings, games, 'M1', 'M2', 5, raters);
  const scores = [1, 2, 3, 4, 5];
  const header = ['game', 'm1', 'm2', 'sessions', 'share'];
  const rows: Cell[][] = maps.flatMap((m) =>
    scores.flatMap((y) => scores.map((x) => [m.game, x, y, m.counts[y - 1]?.[x - 1] ?? 0, m.sessions ? fmt((m.counts[y - 1]?.[x - 1] ?? 0) / m.sessions) : 0])),
  );
  const shade = (share: number) => `rgba(31, 95, 168, ${Math.min(1, 0.08 + share * 1.6).toFixed(2)})`;
  const png = () =>
    tablesToPng(
      maps.map((m) => ({
        title: `${m.game} (n = ${m.sessions} sessions)`,
        header: ['M2 \\ M1', ...scores.map(String)],
        rows: [...scores].reverse().map((y) => [String(y), ...scores.map((x) => String(m.counts[y - 1]?.[x - 1] ?? 0))]),
        fill: (r, c) => {
          if (c === 0) return null;
          const y = 5 - r;
          const v = m.counts[y - 1]?.[c - 1] ?? 0;
          return v && m.sessions ? shade(v / m.sessions) : null;
        },
        outline: (r, c) => c > 0 && 5 - r === c,
      })),
      'Fig. 4.8 — ratings of M1 (loss-dominated) vs M2 (delay-dominated)',
    );
  return (
    <Figure
      id="m1-m2-heatmap"
      reference="Fig. 4.8"
      title="M1 vs M2: which impairment is worse?"
      caption={
        <>
          Each cell counts the sessions that rated M1 (mixed, loss-dominated) with the column&apos;s score and M2 (mixed,
          delay-dominated) with the row&apos;s score; darker = more sessions ({group}). Outlined cells lie on the diagonal
          (equal ratings); cells right of it prefer M1, cells left of it prefer M2.
        </>
      }
      points={maps.length * 25}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-8-m1-m2-heatmap"
    >
      <div className="heatmaps">
        {maps.map((m) => (
          <div key={m.game} className="heatmap">
            <table className="heatmap__table" aria-label={`M1 vs M2 ratings, ${m.game}`}>
              <caption>
                {m.game} — {m.sessions} sessions: {Math.round(m.m1Better * 100)} % prefer M1, {Math.round(m.equal * 100)} %
                equal, {Math.round(m.m2Better * 100)} % prefer M2
              </caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">M2 score by </span>M2 ↓ / M1 →
                  </th>
                  {scores.map((x) => (
                    <th key={x} scope="col">
                      {x}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {[...scores].reverse().map((y) => (
                  <tr key={y}>
                    <th scope="row">{y}</th>
                    {scores.map((x) => {
                      const v = m.counts[y - 1]?.[x - 1] ?? 0;
                      const share = m.sessions ? v / m.sessions : 0;
                      return (
                        <td
                          key={x}
                          className={`heatmap__cell${x === y ? ' heatmap__cell--diagonal' : ''}${share > 0.3 ? ' heatmap__cell--dark' : ''}`}
                          style={v ? { background: shade(share) } : undefined}
                          data-cell={`${x},${y}`}
                        >
                          {v}
                          <span className="visually-hidden">
                            {' '}
                            sessions rated M1 {x} and M2 {y}
                          </span>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      </div>
    </Figure>
  );
}

// --- fig. 4.9 ---------------------------------------------------------------------------------

export function CdfFigure({ doc, games, group }: { doc: AnalysisDoc; games: string[]; group: string }) {
  const { ref, png } = useChartRef();
  const series = ratingCdfs(doc, games, ['A1', 'A2']);
  const chartData: ChartData<'line'> = {
    datasets: series.map((s) => {
      const i = games.indexOf(s.game);
      return {
        label: `${s.game} — ${s.scenario === 'A1' ? 'A1 (client→server impaired)' : 'A2 (server→client impaired)'}`,
        data: s.cdf.map((p, k) => ({ x: k + 1, y: p })),
        stepped: 'before' as const,
        borderColor: colour(i),
        backgroundColor: colour(i),
        borderDash: s.scenario === 'A2' ? [6, 4] : [],
        pointStyle: s.scenario === 'A2' ? 'triangle' : 'circle',
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
      id="a1-a2-cdf"
      reference="Fig. 4.9"
      title="Asymmetric impairment: CDFs of the ratings of A1 vs A2"
      caption={<>Cumulative share of ratings up to each score ({group}). A curve that rises earlier means worse ratings.</>}
      points={series.length * 5}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-9-a1-a2-cdf"
      table={<DataTable label="CDF of the ratings of A1 and A2" header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="line" data={chartData} options={options} role="img" aria-label="CDF of the ratings of A1 and A2" />
      </div>
    </Figure>
  );
}

// --- fig. 4.2 ---------------------------------------------------------------------------------

export function IntraRaterFigure({ doc }: { doc: AnalysisDoc }) {
  const { ref, png } = useChartRef();
  const data = intraRaterCdf(doc);
  const chartData: ChartData<'line'> = {
    datasets: [
      {
        label: 'Raters: CDF of |ρ|',
        data: data.points.map((p) => ({ x: p.abs, y: p.p })),
        stepped: 'before' as const,
        borderColor: colour(0),
        backgroundColor: colour(0),
        pointRadius: 2,
      },
      {
        label: `Cut-off |ρ| = ${data.cutoff}`,
        data: [
          { x: data.cutoff, y: 0 },
          { x: data.cutoff, y: 1 },
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
      x: { type: 'linear', min: 0, max: 1, title: { display: true, text: "|Spearman ρ| of a rater's scores against the impairment" } },
      y: { min: 0, max: 1, title: { display: true, text: 'Share of raters' } },
    },
    plugins: { legend: { position: 'bottom' } },
  };
  const header = ['rater_id', 'rho', 'abs_rho', 'cumulative_share', 'reliable'];
  const rows: Cell[][] = data.points.map((p) => [p.rater, fmt(p.rho), fmt(p.abs), fmt(p.p), p.abs > data.cutoff]);
  return (
    <Figure
      id="intra-rater-cdf"
      reference="Fig. 4.2"
      title="Intra-rater reliability"
      caption={
        <>
          CDF of each rater&apos;s |ρ| (scores against delay in B, D1–D3 and against loss in B, L1, L2). Raters above the
          cut-off {data.cutoff} count as reliable: {Math.round(data.shareReliable * 100)} % of {data.points.length}
          {data.excluded > 0 ? ` (${data.excluded} without a computable ρ not shown)` : ''}.
        </>
      }
      points={data.points.length}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-2-intra-rater-cdf"
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
    labels: data.groups.map((g) => GROUP_LABEL[g] ?? g),
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
      points={rows.length}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-3-inter-rater"
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
      table={<DataTable label="SOS and MOS per condition" header={header} rows={rows} />}
    >
      <div className="chart-box">
        <ChartCanvas ref={ref as never} type="scatter" data={chartData as ChartData<'scatter'>} options={options} role="img" aria-label="Scatter plot: SOS over MOS" />
      </div>
    </Figure>
  );
}

// --- table 4.2 --------------------------------------------------------------------------------

export function WeightsFigure({ doc }: { doc: AnalysisDoc }) {
  const { ref, png } = useChartRef();
  const rows = weightRows(doc);
  const chartData: ChartData<'bar'> = {
    labels: rows.map((r) => r.label),
    datasets: [
      { label: 'RapidMiner (normalised 0..1)', data: rows.map((r) => r.rapidminer), backgroundColor: colour(0) },
      { label: 'WEKA InfoGain (bits)', data: rows.map((r) => r.weka), backgroundColor: colour(1) },
    ],
  };
  const options: ChartOptions<'bar'> = {
    indexAxis: 'y',
    maintainAspectRatio: false,
    scales: { x: { min: 0, title: { display: true, text: 'Weight' } } },
    plugins: { legend: { position: 'bottom' } },
  };
  const header = ['factor', 'label', 'rapidminer_weight', 'weka_infogain_bits'];
  const csvRows: Cell[][] = rows.map((r) => [r.factor, r.label, fmt(r.rapidminer), fmt(r.weka)]);
  return (
    <Figure
      id="weights"
      reference="Table 4.2"
      title="Weight of the factors by information gain"
      caption={
        <>
          Target: {doc.weights.target}. RapidMiner: {doc.weights.conventions.rapidminer}. WEKA: {doc.weights.conventions.weka}.
        </>
      }
      points={rows.length}
      csv={{ header, rows: csvRows }}
      png={png}
      filename="table-4-2-weights"
      table={
        <DataTable
          label="Weights of the factors"
          header={['Factor', 'RapidMiner weight', 'WEKA InfoGain (bits)']}
          rows={rows.map((r) => [r.label, fmt(r.rapidminer), fmt(r.weka)])}
        />
      }
    >
      <div className="chart-box chart-box--tall">
        <ChartCanvas ref={ref as never} type="bar" data={chartData} options={options} role="img" aria-label="Bar chart: weights of the factors" />
      </div>
      <div className="table-wrap weights-table">
        <table className="data-table" aria-label="Weights of the factors (table 4.2)">
          <thead>
            <tr>
              <th scope="col">Parameter</th>
              <th scope="col" className="num">Weight (RapidMiner)</th>
              <th scope="col" className="num">InfoGain (WEKA, bits)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.factor}>
                <th scope="row">{r.label}</th>
                <td className="num">{round(r.rapidminer, 3)}</td>
                <td className="num">{round(r.weka, 4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Figure>
  );
}

// --- fig. 4.10 --------------------------------------------------------------------------------

const NODE_W = 150;
const NODE_H = 58;
const GAP_X = 14;
const GAP_Y = 56;

export function TreeFigure({ doc }: { doc: AnalysisDoc }) {
  const svgRef = useRef<SVGSVGElement>(null);
  const { nodes, width, depth } = layoutTree(doc.tree.root);
  const W = Math.max(1, width) * (NODE_W + GAP_X) + GAP_X;
  const H = (depth + 1) * (NODE_H + GAP_Y) + 10;
  const pos = new Map(nodes.map((n) => [n.id, { cx: GAP_X + n.x * (NODE_W + GAP_X) + NODE_W / 2, y: 10 + n.depth * (NODE_H + GAP_Y) }]));
  const png = () => (svgRef.current ? svgToPng(svgRef.current) : null);
  const header = ['node', 'depth', 'test_from_parent', 'split', 'n', 'p_acceptable', 'prediction'];
  const rows: Cell[][] = nodes.map((n) => [n.id, n.depth, n.edge, n.node.split ? splitLabel(n.node) : 'leaf', n.node.n, fmt(n.node.p_acceptable), n.node.prediction]);
  const leaves = nodes.filter((n) => n.leaf).length;
  return (
    <Figure
      id="decision-tree"
      reference="Fig. 4.10"
      title="Decision tree: when is the quality acceptable?"
      caption={
        <>
          REPTree-style tree ({doc.tree.method}); {nodes.length} nodes, {leaves} leaves, training accuracy{' '}
          {round((doc.tree.training_accuracy ?? 0) * 100, 1)} %. Green leaves predict acceptable (rating ≥{' '}
          {doc.meta.acceptable_from}); the share is P(acceptable) in the leaf.
        </>
      }
      points={nodes.length}
      csv={{ header, rows }}
      png={png}
      filename="fig-4-10-decision-tree"
      table={
        <ol className="tree-rules" aria-label="Decision rules">
          {doc.tree.rules.map((r, i) => (
            <li key={i}>{r.text}</li>
          ))}
        </ol>
      }
    >
      <div className="tree-scroll">
        <svg ref={svgRef} className="tree" viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`Decision tree with ${nodes.length} nodes`}>
          <style>{`text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;font-size:11px;fill:#1c2430}.edge{font-size:10px;fill:#5a6472}`}</style>
          {nodes
            .filter((n) => n.parent !== null)
            .map((n) => {
              const from = pos.get(n.parent ?? '');
              const to = pos.get(n.id);
              if (!from || !to) return null;
              const midY = (from.y + NODE_H + to.y) / 2;
              return (
                <g key={`e-${n.id}`}>
                  <path d={`M${from.cx},${from.y + NODE_H} V${midY} H${to.cx} V${to.y}`} fill="none" stroke="#8a939f" />
                  <text className="edge" x={to.cx} y={to.y - 6} textAnchor="middle">
                    {shorten(n.edge ?? '', 28)}
                  </text>
                </g>
              );
            })}
          {nodes.map((n) => {
            const p = pos.get(n.id);
            if (!p) return null;
            const acceptable = n.node.prediction === 'acceptable';
            const fill = n.leaf ? (acceptable ? '#e2f3e7' : '#fbeceb') : '#eef1f5';
            const stroke = n.leaf ? (acceptable ? '#1d5b33' : '#a12a1f') : '#8a939f';
            return (
              <g key={n.id} data-node={n.id}>
                <rect x={p.cx - NODE_W / 2} y={p.y} width={NODE_W} height={NODE_H} rx={6} fill={fill} stroke={stroke} />
                <text x={p.cx} y={p.y + 20} textAnchor="middle" fontWeight={600}>
                  {n.leaf ? (acceptable ? 'acceptable' : 'not acceptable') : shorten(splitLabel(n.node), 24)}
                </text>
                <text x={p.cx} y={p.y + 38} textAnchor="middle">
                  n = {Math.round(n.node.n)}, P(acc.) = {round(n.node.p_acceptable, 2)}
                </text>
              </g>
            );
          })}
        </svg>
      </div>
    </Figure>
  );
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// --- KPI thresholds -----------------------------------------------------------------------------

export function ThresholdsFigure({ doc, paces }: { doc: AnalysisDoc; paces: string[] | null }) {
  const rows = thresholdRows(doc, paces);
  const header = ['pace', 'direction', 'quantity', 'unit', 'tree', 'tree_tested_bracket', 'tree_status', 'logistic', 'logistic_ci95', 'note'];
  const csvRows: Cell[][] = rows.map((r) => [r.pace, r.direction, r.quantity, r.unit, r.tree, r.bracket, r.status, fmt(r.logistic, 2), r.ci95, r.note]);
  const show = (value: number | null, r: (typeof rows)[number]) =>
    value === null ? (r.status === 'acceptable_at_all_tested_levels' ? 'beyond tested range' : '—') : `${round(value, 2)} ${r.unit}`;
  const tableRows = rows.map((r) => [r.pace, r.direction, `max ${r.quantity}`, show(r.tree, r), r.bracket ? `${r.bracket} ${r.unit}` : '', r.logistic === null ? '—' : `${round(r.logistic, 2)} ${r.unit}`, r.ci95]);
  const tableHeader = ['Game class', 'Direction', 'KPI', 'Tree threshold', 'Between tested levels', 'Logistic model', '95 % CI'];
  const png = () => tablesToPng([{ title: doc.thresholds.criterion, header: tableHeader, rows: tableRows }], 'KPI thresholds per game class');
  return (
    <Figure
      id="thresholds"
      reference="KPIs"
      title="KPI thresholds per game class"
      caption={
        <>
          Largest delay and loss still acceptable: {doc.thresholds.criterion}. The tree threshold lies between two tested
          levels; the logistic model is given where the design identifies it. Hover a row for the analysis&apos; note.
        </>
      }
      points={rows.length}
      csv={{ header, rows: csvRows }}
      png={png}
      filename="kpi-thresholds"
    >
      <HeadedTable label="KPI thresholds per game class" header={tableHeader}>
        {rows.map((r, i) => (
          <tr key={i} title={r.note}>
            <th scope="row">{r.pace}</th>
            <td>{r.direction}</td>
            <td>max {r.quantity}</td>
            <td className="num">{tableRows[i]?.[3]}</td>
            <td className="num">{tableRows[i]?.[4]}</td>
            <td className="num">{tableRows[i]?.[5]}</td>
            <td className="num">{r.ci95}</td>
          </tr>
        ))}
      </HeadedTable>
    </Figure>
  );
}

export { factorLabel };
