/** Helpers shared by the chart figures: the chart ref with its PNG export, the MOS axis, formatting. */
import { useRef } from 'react';

import type { ScaleRange } from '../evidence';
import { intervalTooltip } from './setup';
import type { Chart } from './setup';

export type AnyChart = Chart<'bar' | 'line' | 'scatter'>;

export function useChartRef() {
  const ref = useRef<AnyChart | null>(null);
  const png = () => ref.current?.toBase64Image('image/png', 1) ?? null;
  return { ref, png };
}

/**
 * The y axis of a MOS figure: fixed to the item's scale (never widened by a whisker; the
 * whiskers are clipped to it, see errorBars.ts), one tick per scale point when discrete.
 */
export function mosAxis(scale: ScaleRange, title = 'MOS') {
  const step = scale.step ?? (Number.isInteger(scale.min) && Number.isInteger(scale.max) && scale.max - scale.min <= 10 ? 1 : undefined);
  return { min: scale.min, max: scale.max, title: { display: true, text: title }, ticks: step === undefined ? {} : { stepSize: step } };
}

/** The tooltip of a MOS figure: the interval's status under each value ("interval clipped to the scale", …). */
export const INTERVAL_TOOLTIP = { callbacks: { afterLabel: intervalTooltip } };

export function count(values: readonly (number | null)[]): number {
  return values.filter((v) => v !== null).length;
}

export const fmt = (v: number | null | undefined, d = 3) => (v === null || v === undefined ? null : Number(v.toFixed(d)));
