/**
 * The whiskers of the explorer's charts (95 % confidence intervals, inter-rater quantiles):
 * their geometry in pixels and their drawing, kept apart from Chart.js so a test can check
 * that no stroke leaves the chart area.
 *
 * Rule: a whisker is drawn inside the chart area only — its ends are clamped to the area
 * and the drawing is clipped to it (`ctx.clip`), so it never crosses an axis title or the
 * legend, on the page or in the PNG export (the same canvas). An end that was cut (the
 * analysis clipped the interval to the scale, `ci95_status: "clipped"`, or the bound lies
 * outside the axis in a document stored before intervals were clipped) ends in an open
 * arrow instead of a cap; an interval with "n too small" has no whisker.
 */
import type { IntervalStatus } from '../evidence';

export interface Area {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The y axis as the plugin sees it: value → pixel, and its range. */
export interface YAxis {
  min: number;
  max: number;
  getPixelForValue: (value: number) => number;
}

export interface Whisker {
  x: number;
  /** Pixel of the upper end (smaller y), inside the area. */
  top: number;
  bottom: number;
  topCut: boolean;
  bottomCut: boolean;
}

/** Half width of a cap, and depth of an open-arrow end, in pixels. */
export const CAP = 4;

const EPS = 1e-9;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * A whisker from `low` to `high` at pixel `x`, or null when there is nothing to draw (no
 * bound, "n too small", or the whole interval lies off the axis). An end is "cut" when the
 * bound lies beyond the axis, or the interval was clipped and that bound is at the axis end.
 */
export function whisker(x: number, low: number | null | undefined, high: number | null | undefined, status: IntervalStatus | null | undefined, axis: YAxis, area: Area): Whisker | null {
  if (status === 'n_too_small') return null;
  if (low === null || low === undefined || high === null || high === undefined) return null;
  if (!Number.isFinite(low) || !Number.isFinite(high) || !Number.isFinite(x)) return null;
  if (high < axis.min || low > axis.max) return null;
  const clipped = status === 'clipped';
  const topCut = high > axis.max + EPS || (clipped && high >= axis.max - EPS);
  const bottomCut = low < axis.min - EPS || (clipped && low <= axis.min + EPS);
  const yHigh = axis.getPixelForValue(Math.min(high, axis.max));
  const yLow = axis.getPixelForValue(Math.max(low, axis.min));
  const top = clamp(Math.min(yHigh, yLow), area.top, area.bottom);
  const bottom = clamp(Math.max(yHigh, yLow), area.top, area.bottom);
  return { x, top, bottom, topCut, bottomCut };
}

/**
 * The box that the whiskers' strokes span (arms and caps included), or null without one:
 * the browser tests compare it with the chart area (`data-whisker-extent` on the canvas).
 */
export function whiskerExtent(area: Area, whiskers: readonly Whisker[]): Area | null {
  if (whiskers.length === 0) return null;
  const xs = whiskers.flatMap((w) => [clamp(w.x - CAP, area.left, area.right), clamp(w.x + CAP, area.left, area.right)]);
  return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...whiskers.map((w) => w.top)), bottom: Math.max(...whiskers.map((w) => w.bottom)) };
}

/** The drawing calls the whiskers use (a CanvasRenderingContext2D has them all). */
export type WhiskerContext = Pick<CanvasRenderingContext2D, 'save' | 'restore' | 'beginPath' | 'rect' | 'clip' | 'moveTo' | 'lineTo' | 'stroke'> & {
  strokeStyle: CanvasRenderingContext2D['strokeStyle'];
  lineWidth: number;
};

/**
 * Draws the whiskers clipped to `area`: the stem, a cap at an ordinary end, an open arrow
 * (pointing out of the scale) at a cut end. Every coordinate is inside the area as well.
 */
export function drawWhiskers(ctx: WhiskerContext, area: Area, whiskers: readonly Whisker[], colour = '#1c2430'): void {
  if (whiskers.length === 0) return;
  ctx.save();
  ctx.beginPath();
  ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
  ctx.clip();
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1.25;
  ctx.beginPath();
  for (const w of whiskers) {
    const x = clamp(w.x, area.left, area.right);
    const l = clamp(x - CAP, area.left, area.right);
    const r = clamp(x + CAP, area.left, area.right);
    ctx.moveTo(x, w.top);
    ctx.lineTo(x, w.bottom);
    // an open arrow: its tip at the cut end, its arms reaching back into the area
    if (w.topCut) {
      const arm = clamp(w.top + CAP, area.top, area.bottom);
      ctx.moveTo(l, arm);
      ctx.lineTo(x, w.top);
      ctx.lineTo(r, arm);
    } else {
      ctx.moveTo(l, w.top);
      ctx.lineTo(r, w.top);
    }
    if (w.bottomCut) {
      const arm = clamp(w.bottom - CAP, area.top, area.bottom);
      ctx.moveTo(l, arm);
      ctx.lineTo(x, w.bottom);
      ctx.lineTo(r, arm);
    } else {
      ctx.moveTo(l, w.bottom);
      ctx.lineTo(r, w.bottom);
    }
  }
  ctx.stroke();
  ctx.restore();
}
