import type { ChartData, ChartOptions } from 'chart.js';
import { Chart as ChartCanvas } from 'react-chartjs-2';

import { colour } from '../../results/charts/setup';
import { delayBounds } from './steeringHistory';
import type { History } from './steeringHistory';
import type { StatusDocument } from './steeringTypes';

/**
 * The delay percentile the daemon decides on, per path and direction, over the windows the
 * console has seen since the page opened, with each class's delay bound as a dashed line.
 * The x axis is seconds before the newest window.
 */
export function DelayChart({ history, status }: { history: History; status: StatusDocument }) {
  const series = Object.entries(history);
  const latest = Math.max(...series.flatMap(([, points]) => points.map((p) => p.at)));
  if (series.length === 0 || !Number.isFinite(latest)) {
    return <p className="muted">The delay chart starts with the first fresh measurement.</p>;
  }
  const first = Math.min(...series.flatMap(([, points]) => points.map((p) => p.at)));
  const percentile = status.settings.delay_percentile;
  const data: ChartData<'line', { x: number; y: number }[]> = {
    datasets: [
      ...series.map(([name, points], i) => ({
        label: `${name} delay ${percentile}`,
        data: points.map((p) => ({ x: p.at - latest, y: p.value })),
        borderColor: colour(i),
        backgroundColor: colour(i),
        pointRadius: 2,
      })),
      ...delayBounds(status).map((bound) => ({
        label: bound.label,
        data: [
          { x: Math.min(first - latest, -1), y: bound.value },
          { x: 0, y: bound.value },
        ],
        borderColor: '#a12a1f',
        borderDash: [6, 4],
        pointRadius: 0,
      })),
    ],
  };
  const options: ChartOptions<'line'> = {
    responsive: true,
    maintainAspectRatio: false,
    scales: {
      x: { type: 'linear', title: { display: true, text: 'seconds before the newest window' } },
      y: { type: 'linear', beginAtZero: true, title: { display: true, text: `one-way delay ${percentile} (ms)` } },
    },
  };
  return (
    <figure className="steering-chart">
      <div className="steering-chart__canvas">
        <ChartCanvas type="line" data={data} options={options} aria-label={`Delay ${percentile} per path and direction with the bounds`} role="img" />
      </div>
      <figcaption className="muted">
        Delay {percentile} per path and direction since this page opened (dashed: the class&apos;s delay bound).
      </figcaption>
    </figure>
  );
}
