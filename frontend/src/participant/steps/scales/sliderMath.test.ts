import { describe, expect, it } from 'vitest';

import type { Scale } from '../../items';
import { keyStep, midpoint, niceStep, percent, resolution, snap, valueForKey } from './sliderMath';

const seven: Scale = { kind: 'continuous', min: 1, max: 7, step: null, labels: [] };
const hundred: Scale = { kind: 'continuous', min: 0, max: 100, step: null, labels: [] };
const tenths: Scale = { kind: 'continuous', min: 0, max: 10, step: 0.5, labels: [] };

describe('the slider arithmetic', () => {
  it('picks 1-2-5 steps', () => {
    expect(niceStep(0.12)).toBe(0.1);
    expect(niceStep(2)).toBe(2);
    expect(niceStep(4.9)).toBe(2);
    expect(niceStep(0.01)).toBe(0.01);
  });

  it('resolves 1–7 to 0.01 and 0–100 to 0.1, or to the declared step', () => {
    expect(resolution(seven)).toBe(0.01);
    expect(resolution(hundred)).toBe(0.1);
    expect(resolution(tenths)).toBe(0.5);
    expect(keyStep(seven)).toBe(0.1);
    expect(keyStep(hundred)).toBe(2);
    expect(keyStep(tenths)).toBe(0.5);
  });

  it('snaps into the range without float noise', () => {
    expect(snap(seven, 4.1000000001)).toBe(4.1);
    expect(snap(seven, 0.3)).toBe(1);
    expect(snap(seven, 9)).toBe(7);
    expect(snap(tenths, 3.3)).toBe(3.5);
    expect(midpoint(seven)).toBe(4);
    expect(percent(seven, 4)).toBe(50);
  });

  it('starts at the midpoint on the first arrow, then moves by a step', () => {
    expect(valueForKey(seven, undefined, 'ArrowLeft')).toBe(4);
    expect(valueForKey(seven, undefined, 'ArrowRight')).toBe(4);
    expect(valueForKey(seven, 4, 'ArrowRight')).toBe(4.1);
    expect(valueForKey(seven, 4.1, 'ArrowDown')).toBe(4);
    expect(valueForKey(seven, 6.95, 'ArrowUp')).toBe(7);
    expect(valueForKey(seven, 4, 'PageDown')).toBe(3);
    expect(valueForKey(seven, undefined, 'End')).toBe(7);
    expect(valueForKey(seven, 3, 'Home')).toBe(1);
    expect(valueForKey(seven, 3, '6')).toBe(6);
    expect(valueForKey(seven, 3, '9')).toBeNull();
    expect(valueForKey(seven, 3, 'x')).toBeNull();
  });
});
