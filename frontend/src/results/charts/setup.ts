/**
 * Chart.js for the results explorer only (this module is never imported by the participant
 * entry): the controllers and elements the figures use, a white background (so a
 * downloaded PNG is not transparent) and 95 % confidence-interval whiskers.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
} from 'chart.js';
import type { ChartType, Plugin } from 'chart.js';

declare module 'chart.js' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ChartDatasetProperties<TType extends ChartType, TData> {
    /** 95 % CI per data point, drawn as whiskers by the errorBars plugin. */
    errorBars?: { low: (number | null)[]; high: (number | null)[] };
  }
}

const whiteBackground: Plugin = {
  id: 'qoelabWhiteBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

const errorBars: Plugin = {
  id: 'qoelabErrorBars',
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    const yScale = chart.scales.y;
    if (!yScale) return;
    chart.data.datasets.forEach((dataset, i) => {
      const bars = dataset.errorBars;
      if (!bars || !chart.isDatasetVisible(i)) return;
      const meta = chart.getDatasetMeta(i);
      ctx.save();
      ctx.strokeStyle = '#1c2430';
      ctx.lineWidth = 1.25;
      meta.data.forEach((element, j) => {
        const low = bars.low[j];
        const high = bars.high[j];
        if (low === null || low === undefined || high === null || high === undefined) return;
        const x = element.x;
        const top = yScale.getPixelForValue(high);
        const bottom = yScale.getPixelForValue(low);
        const cap = 4;
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, bottom);
        ctx.moveTo(x - cap, top);
        ctx.lineTo(x + cap, top);
        ctx.moveTo(x - cap, bottom);
        ctx.lineTo(x + cap, bottom);
        ctx.stroke();
      });
      ctx.restore();
    });
  },
};

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
  Legend,
  whiteBackground,
  errorBars,
);
Chart.defaults.font.family = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
Chart.defaults.color = '#1c2430';
Chart.defaults.animation = false;

/** Okabe–Ito colours (distinguishable with colour-vision deficiencies), one per game. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

export function colour(index: number): string {
  return PALETTE[index % PALETTE.length] ?? '#000000';
}

export { Chart };
