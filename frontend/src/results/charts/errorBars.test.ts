import { describe, expect, it } from 'vitest';

import { CAP, drawWhiskers, whisker, whiskerExtent } from './errorBars';
import type { Area, WhiskerContext, YAxis } from './errorBars';

/** A 1–5 MOS axis drawn from y = 300 (MOS 1) up to y = 20 (MOS 5), as Chart.js maps it. */
const AREA: Area = { left: 50, right: 450, top: 20, bottom: 300 };
const AXIS: YAxis = { min: 1, max: 5, getPixelForValue: (v) => AREA.bottom - ((v - 1) / 4) * (AREA.bottom - AREA.top) };

/** Records every point a path visits and whether the drawing was clipped to the area first. */
function recorder() {
  const points: [number, number][] = [];
  const clips: Area[] = [];
  let pendingRect: Area | null = null;
  let strokes = 0;
  const ctx: WhiskerContext = {
    strokeStyle: '',
    lineWidth: 1,
    save: () => undefined,
    restore: () => undefined,
    beginPath: () => undefined,
    rect: (x: number, y: number, w: number, h: number) => {
      pendingRect = { left: x, top: y, right: x + w, bottom: y + h };
    },
    clip: () => {
      if (pendingRect) clips.push(pendingRect);
    },
    moveTo: (x: number, y: number) => {
      points.push([x, y]);
    },
    lineTo: (x: number, y: number) => {
      points.push([x, y]);
    },
    stroke: () => {
      strokes += 1;
    },
  };
  return { ctx, points, clips, strokes: () => strokes };
}

const inside = ([x, y]: [number, number], a: Area) => x >= a.left && x <= a.right && y >= a.top && y <= a.bottom;

describe('whiskers on a 1–5 axis', () => {
  it('never leave the chart area for the issue’s interval [−10.7, 14.7], clipped or not', () => {
    // the interval as stored before clipping (n = 2), and as the analysis now writes it
    for (const [low, high, status] of [
      [-10.7, 14.7, null],
      [1, 5, 'clipped'],
    ] as const) {
      const w = whisker(200, low, high, status, AXIS, AREA);
      expect(w).not.toBeNull();
      if (!w) return;
      expect([w.top, w.bottom]).toEqual([AREA.top, AREA.bottom]);
      expect([w.topCut, w.bottomCut]).toEqual([true, true]);
      const r = recorder();
      drawWhiskers(r.ctx, AREA, [w]);
      expect(r.clips).toEqual([AREA]);
      expect(r.strokes()).toBe(1);
      expect(r.points.length).toBeGreaterThan(0);
      for (const p of r.points) expect(inside(p, AREA), `(${p[0]}, ${p[1]}) outside the chart area`).toBe(true);
    }
  });

  it('draws an open arrow at a cut end and a cap at an ordinary one', () => {
    // MOS 4.3 with 2.9 … 5 (the upper end clipped to the scale)
    const w = whisker(100, 2.9, 5, 'clipped', AXIS, AREA);
    expect(w).toMatchObject({ topCut: true, bottomCut: false, top: AREA.top, bottom: AXIS.getPixelForValue(2.9) });
    const r = recorder();
    if (w) drawWhiskers(r.ctx, AREA, [w]);
    // stem; arrow: (96, top + 4) → (100, top) → (104, top + 4); cap: (96, bottom) → (104, bottom)
    expect(r.points).toEqual([
      [100, AREA.top],
      [100, AXIS.getPixelForValue(2.9)],
      [100 - CAP, AREA.top + CAP],
      [100, AREA.top],
      [100 + CAP, AREA.top + CAP],
      [100 - CAP, AXIS.getPixelForValue(2.9)],
      [100 + CAP, AXIS.getPixelForValue(2.9)],
    ]);
  });

  it('keeps the caps inside at the edge of the area', () => {
    const w = whisker(AREA.left, 2, 3, 'ok', AXIS, AREA);
    const r = recorder();
    if (w) drawWhiskers(r.ctx, AREA, [w]);
    expect(r.points.every((p) => inside(p, AREA))).toBe(true);
    expect(Math.min(...r.points.map((p) => p[0]))).toBe(AREA.left);
  });

  it('reports the box the strokes span (for the browser tests), equal to what was drawn', () => {
    const ws = [whisker(AREA.left + 1, -10.7, 14.7, null, AXIS, AREA), whisker(300, 2, 3, 'ok', AXIS, AREA)].filter((w) => w !== null);
    const r = recorder();
    drawWhiskers(r.ctx, AREA, ws);
    const xs = r.points.map((p) => p[0]);
    const ys = r.points.map((p) => p[1]);
    expect(whiskerExtent(AREA, ws)).toEqual({ left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) });
    expect(whiskerExtent(AREA, [])).toBeNull();
  });

  it('draws nothing for "n too small", a missing bound or an interval wholly off the axis', () => {
    expect(whisker(100, null, null, 'n_too_small', AXIS, AREA)).toBeNull();
    expect(whisker(100, 2, 4, 'n_too_small', AXIS, AREA)).toBeNull();
    expect(whisker(100, 2, null, 'ok', AXIS, AREA)).toBeNull();
    expect(whisker(100, 5.5, 7, null, AXIS, AREA)).toBeNull();
    const r = recorder();
    drawWhiskers(r.ctx, AREA, []);
    expect(r.points).toEqual([]);
  });

  it('marks an end reaching the axis end as cut only when the interval was clipped', () => {
    expect(whisker(100, 3, 5, 'ok', AXIS, AREA)).toMatchObject({ topCut: false, bottomCut: false });
    expect(whisker(100, 1, 3, 'clipped', AXIS, AREA)).toMatchObject({ topCut: false, bottomCut: true });
  });
});
