/** Helpers shared by the chart figures: the chart ref with its PNG export, the MOS axis, formatting. */
import { useRef } from 'react';

import type { Chart } from './setup';

export type AnyChart = Chart<'bar' | 'line' | 'scatter'>;

export function useChartRef() {
  const ref = useRef<AnyChart | null>(null);
  const png = () => ref.current?.toBase64Image('image/png', 1) ?? null;
  return { ref, png };
}

export const MOS_AXIS = { min: 1, max: 5, title: { display: true, text: 'MOS' }, ticks: { stepSize: 1 } } as const;

export function count(values: readonly (number | null)[]): number {
  return values.filter((v) => v !== null).length;
}

export const fmt = (v: number | null | undefined, d = 3) => (v === null || v === undefined ? null : Number(v.toFixed(d)));
