import { describe, expect, it } from 'vitest';

import { layoutAnchors } from './anchorLayout';
import type { AnchorLayout, LabelSize } from './anchorLayout';

/** The P.809 1–7 labels as SliderAnchors measures them in Debian's Chromium at 0.95 × 18 px (one line; longest word). */
const EN: [number, number][] = [
  [126, 88], // Extremely bad
  [35, 35], // Bad
  [39, 39], // Poor
  [32, 32], // Fair
  [47, 47], // Good
  [80, 80], // Excellent
  [43, 43], // Ideal
];
const DE: [number, number][] = [
  [140, 73], // Extrem schlecht
  [75, 75], // Schlecht
  [61, 61], // Dürftig
  [90, 90], // Ordentlich
  [32, 32], // Gut
  [127, 127], // Ausgezeichnet
  [43, 43], // Ideal
];

const sevenPoint = (widths: [number, number][], track: number): LabelSize[] =>
  widths.map(([maxContent, minContent], i) => ({ x: (i / 6) * track, maxContent, minContent }));

/** No two boxes of a row closer than `gap`, every box inside the track and ≥ its longest word. */
function expectSound(layout: AnchorLayout, sizes: LabelSize[], width: number, gap: number) {
  for (const p of layout.labels) {
    expect(p.left).toBeGreaterThanOrEqual(0);
    expect(p.left + p.width).toBeLessThanOrEqual(width + 1e-9);
    expect(p.width).toBeGreaterThanOrEqual((sizes[p.index]?.minContent ?? 0) - 1e-9);
  }
  for (let row = 0; row < layout.rows; row += 1) {
    const inRow = layout.labels.filter((p) => p.row === row).sort((a, b) => a.left - b.left);
    inRow.slice(1).forEach((p, k) => {
      const before = inRow[k];
      expect(before && before.left + before.width + gap).toBeLessThanOrEqual(p.left + 1e-9);
    });
  }
}

describe('the slider anchor layout', () => {
  it('keeps every label in one row on a desktop track, wrapping "Extremely bad" if needed', () => {
    const sizes = sevenPoint(EN, 740);
    const layout = layoutAnchors(sizes, 740);
    expect(layout.rows).toBe(1);
    expect(layout.labels.map((p) => p.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(layout.labels.map((p) => p.align)).toEqual(['start', 'center', 'center', 'center', 'center', 'center', 'end']);
    expectSound(layout, sizes, 740, 8);
  });

  it('shrinks a label between words rather than letting it run into its neighbour', () => {
    // The old CSS gave every label 7 rem (120 px): "Extremely bad" at 0–120 px ran into "Bad" centred at 117 px.
    const sizes = sevenPoint(EN, 700);
    const layout = layoutAnchors(sizes, 700);
    expect(layout.rows).toBe(1);
    const [first, second] = layout.labels;
    expect(first?.width).toBeLessThan(126); // wrapped to "Extremely / bad"
    expect(first?.width).toBeGreaterThanOrEqual(88); // never narrower than "Extremely"
    expect((first?.left ?? 0) + (first?.width ?? 0) + 8).toBeLessThanOrEqual((second?.left ?? 0) + 1e-9);
    expectSound(layout, sizes, 700, 8);
  });

  it('on a phone track uses two rows or only the ends and the middle, never overlapping', () => {
    for (const widths of [EN, DE]) {
      const sizes = sevenPoint(widths, 300);
      const layout = layoutAnchors(sizes, 300);
      expect(layout.fits).toBe(true);
      expectSound(layout, sizes, 300, 8);
      expect(layout.labels.map((p) => p.index)).toEqual(expect.arrayContaining([0, 6]));
    }
    // German at 300 px: the long words do not fit seven to a row or alternating; ends + middle do.
    const german = layoutAnchors(sevenPoint(DE, 300), 300);
    expect(german.labels.map((p) => p.index).sort()).toEqual([0, 3, 6]);
  });

  it('alternates two rows when one row is too tight but every second label fits', () => {
    const sizes = sevenPoint(EN, 420);
    const layout = layoutAnchors(sizes, 420);
    expect(layout.rows).toBe(2);
    expect(layout.labels.filter((p) => p.row === 0).map((p) => p.index)).toEqual([0, 2, 4, 6]);
    expect(layout.labels.filter((p) => p.row === 1).map((p) => p.index)).toEqual([1, 3, 5]);
    expectSound(layout, sizes, 420, 8);
  });

  it('says so when not even the ends fit, and keeps them at their narrowest', () => {
    const sizes: LabelSize[] = [
      { x: 0, maxContent: 90, minContent: 80 },
      { x: 50, maxContent: 30, minContent: 30 },
      { x: 100, maxContent: 90, minContent: 80 },
    ];
    const layout = layoutAnchors(sizes, 100);
    expect(layout.fits).toBe(false);
    expect(layout.labels.map((p) => [p.row, p.width])).toEqual([
      [0, 80],
      [1, 80],
    ]);
  });

  it('handles no labels and a single label', () => {
    expect(layoutAnchors([], 300)).toEqual({ rows: 1, labels: [], fits: true });
    const one = layoutAnchors([{ x: 0, maxContent: 50, minContent: 40 }], 300);
    expect(one.labels).toEqual([{ index: 0, row: 0, left: 0, width: 50, align: 'start' }]);
  });
});
