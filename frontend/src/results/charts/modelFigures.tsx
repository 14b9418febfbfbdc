/** The fitted models' outputs: factor weights (table 4.2) and KPI thresholds per pace. */
import type { ChartData, ChartOptions } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { FIGURE_WHERE, warningsFor } from '../evidence';
import { round, thresholdRows, weightRows } from '../transforms';
import { tablesToPng } from './canvasTable';
import { fmt, useChartRef } from './common';
import { DataTable, Figure, HeadedTable } from './Figure';
import { colour } from './setup';

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
      unavailable={rows.some((r) => r.weka !== null || r.rapidminer !== null) ? null : (doc.notes?.weights ?? 'no factor weight could be computed from these ratings')}
      warnings={warningsFor(doc, FIGURE_WHERE.weights)}
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
          Largest {[...new Set(rows.map((r) => r.quantity))].join(', ') || 'delay and loss'} still acceptable: {doc.thresholds.criterion}. The tree threshold lies between two tested
          levels; the logistic model is given where the design identifies it. Hover a row for the analysis&apos; note.
        </>
      }
      points={rows.length}
      csv={{ header, rows: csvRows }}
      png={png}
      filename="kpi-thresholds"
      unavailable={rows.length ? null : (doc.notes?.thresholds ?? 'no KPI factor (delay, jitter or loss) varies in this design')}
      warnings={warningsFor(doc, FIGURE_WHERE.thresholds)}
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
