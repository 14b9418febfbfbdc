/**
 * The continuous slider's arithmetic: its resolution, its keyboard step and where a value
 * sits on the track. A slider has no default: the first arrow key puts it at the midpoint.
 */
import type { Scale } from '../../items';

/** The largest 1, 2 or 5 × 10^k not above `x` (a step people can count in). */
export function niceStep(x: number): number {
  const power = 10 ** Math.floor(Math.log10(x));
  const best = [5, 2, 1].find((m) => m * power <= x) ?? 1;
  return best * power;
}

/** What a value is rounded to: the scale's step, else about 1/600 of the range (1–7: 0.01). */
export function resolution(scale: Scale): number {
  return scale.step ?? niceStep((scale.max - scale.min) / 600);
}

/** One arrow key: about 1/50 of the range (1–7: 0.1; 0–100: 2), never finer than the step. */
export function keyStep(scale: Scale): number {
  return Math.max(resolution(scale), niceStep((scale.max - scale.min) / 50));
}

function decimals(x: number): number {
  const text = String(x);
  return text.includes('.') ? (text.split('.')[1]?.length ?? 0) : 0;
}

/** `value` clamped to the scale and rounded to its resolution (no float noise such as 4.1000001). */
export function snap(scale: Scale, value: number): number {
  const res = resolution(scale);
  const clamped = Math.min(scale.max, Math.max(scale.min, value));
  const steps = Math.round((clamped - scale.min) / res);
  return Math.min(scale.max, Number((scale.min + steps * res).toFixed(decimals(res))));
}

export function midpoint(scale: Scale): number {
  return snap(scale, (scale.min + scale.max) / 2);
}

/** Position on the track in percent (min at 0 %, max at 100 %). */
export function percent(scale: Scale, value: number): number {
  return ((value - scale.min) / (scale.max - scale.min)) * 100;
}

/** The value a key gives, or null for a key the slider ignores. */
export function valueForKey(scale: Scale, current: number | undefined, key: string): number | null {
  const step = keyStep(scale);
  const from = current ?? null;
  switch (key) {
    case 'ArrowRight':
    case 'ArrowUp':
      return from === null ? midpoint(scale) : snap(scale, from + step);
    case 'ArrowLeft':
    case 'ArrowDown':
      return from === null ? midpoint(scale) : snap(scale, from - step);
    case 'PageUp':
      return snap(scale, (from ?? midpoint(scale)) + 10 * step);
    case 'PageDown':
      return snap(scale, (from ?? midpoint(scale)) - 10 * step);
    case 'Home':
      return scale.min;
    case 'End':
      return scale.max;
    default: {
      // A number key jumps to that point of the scale (1–7: keys 1 to 7).
      const digit = /^[0-9]$/.test(key) ? Number(key) : NaN;
      return digit >= scale.min && digit <= scale.max ? digit : null;
    }
  }
}
