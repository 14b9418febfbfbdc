/**
 * Chart.js for the results explorer only (this module is never imported by the participant
 * entry): the controllers and elements the figures use, a white background (so a
 * downloaded PNG is not transparent) and 95 % confidence-interval whiskers kept inside the
 * chart area, with the interval's status in the tooltip.
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
import type { ChartType, Plugin, TooltipItem } from 'chart.js';

import { INTERVAL_TEXT } from '../evidence';
import type { IntervalStatus } from '../evidence';
import { drawWhiskers, whisker, whiskerExtent } from './errorBars';
import type { Whisker, YAxis } from './errorBars';

declare module 'chart.js' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ChartDatasetProperties<TType extends ChartType, TData> {
    /** 95 % CI per data point, drawn as whiskers by the errorBars plugin. */
    errorBars?: { low: (number | null)[]; high: (number | null)[]; status?: (IntervalStatus | null)[] };
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

/** The whiskers, drawn inside the chart area only (see errorBars.ts for the rule). */
const errorBars: Plugin = {
  id: 'qoelabErrorBars',
  afterDatasetsDraw(chart) {
    const yScale = chart.scales.y;
    if (!yScale) return;
    const axis: YAxis = { min: yScale.min, max: yScale.max, getPixelForValue: (v) => yScale.getPixelForValue(v) };
    const whiskers: Whisker[] = [];
    chart.data.datasets.forEach((dataset, i) => {
      const bars = dataset.errorBars;
      if (!bars || !chart.isDatasetVisible(i)) return;
      chart.getDatasetMeta(i).data.forEach((element, j) => {
        const w = whisker(element.x, bars.low[j], bars.high[j], bars.status?.[j], axis, chart.chartArea);
        if (w) whiskers.push(w);
      });
    });
    drawWhiskers(chart.ctx, chart.chartArea, whiskers);
    // for the browser tests: the plot area and the box the whiskers span, in CSS pixels
    const box = (a: { left: number; top: number; right: number; bottom: number }) => [a.left, a.top, a.right, a.bottom].map((v) => v.toFixed(1)).join(',');
    const extent = whiskerExtent(chart.chartArea, whiskers);
    const data = chart.canvas.dataset;
    data.chartArea = box(chart.chartArea);
    data.whiskers = String(whiskers.length);
    data.whiskersCut = String(whiskers.filter((w) => w.topCut || w.bottomCut).length);
    data.whiskerExtent = extent ? box(extent) : '';
  },
};

/** The tooltip line under a value with an interval: its status when it is not an ordinary CI. */
export function intervalTooltip(item: TooltipItem<ChartType>): string {
  const status = item.dataset.errorBars?.status?.[item.dataIndex];
  return status === 'clipped' || status === 'n_too_small' ? INTERVAL_TEXT[status] : '';
}

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
// every chart with intervals says in its tooltip when one is clipped or missing
Chart.defaults.plugins.tooltip.callbacks.afterLabel = intervalTooltip;

/** Okabe–Ito colours (distinguishable with colour-vision deficiencies), one per game. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

export function colour(index: number): string {
  return PALETTE[index % PALETTE.length] ?? '#000000';
}

export { Chart };
