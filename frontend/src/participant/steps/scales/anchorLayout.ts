/**
 * Where the slider's anchor labels go so that no two overlap and no word is broken
 * (issue 35: "Extremely bad" ran into "Bad"; on a phone the 1–7 labels read "ExtrBadlyPoor").
 *
 * Each label sits under its tick: centred, or hanging inwards at the ends of the track. Its
 * box may shrink from its one-line width (`maxContent`) down to its longest word
 * (`minContent`), wrapping between words only. The first of these that fits is used:
 * 1. every label in one row; 2. every label, alternating between two rows;
 * 3. the ends and the label nearest the middle; 4. the ends only (the rest stay in the
 * slider's value text). Fitting means: inside the track and at least `gap` px apart.
 */

export interface LabelSize {
  /** Offset of the label's tick from the track's left edge, px. */
  x: number;
  /** One-line width, px. */
  maxContent: number;
  /** Width of the longest word, px (the box never gets narrower). */
  minContent: number;
}

export interface PlacedLabel {
  index: number;
  row: number;
  /** Box of the label from the track's left edge, px. */
  left: number;
  width: number;
  align: 'start' | 'center' | 'end';
}

export interface AnchorLayout {
  rows: number;
  labels: PlacedLabel[];
  /** False when even the ends do not fit (the labels then keep their narrowest boxes). */
  fits: boolean;
}

const EDGE_PX = 0.5;

function alignOf(x: number, width: number): PlacedLabel['align'] {
  if (x <= EDGE_PX) return 'start';
  if (x >= width - EDGE_PX) return 'end';
  return 'center';
}

function boxOf(x: number, w: number, width: number, align: PlacedLabel['align']): number {
  if (align === 'start') return 0;
  if (align === 'end') return width - w;
  return Math.min(Math.max(x - w / 2, 0), Math.max(0, width - w)); // pushed inwards near an end
}

/** One row of labels (in tick order), shrunk pairwise until they are `gap` apart, or null. */
function packRow(sizes: readonly LabelSize[], indices: readonly number[], row: number, width: number, gap: number): PlacedLabel[] | null {
  const work = indices.flatMap((index) => {
    const s = sizes[index];
    if (!s) return [];
    const align = alignOf(s.x, width);
    const w = Math.min(s.maxContent, width);
    return [{ index, row, left: boxOf(s.x, w, width, align), width: w, align, x: s.x, min: s.minContent }];
  });
  for (let round = 0; round < 4 * work.length + 8; round += 1) {
    let clash = false;
    for (const [k, a] of work.entries()) {
      const b = work[k + 1];
      if (!b) continue;
      const overlap = a.left + a.width + gap - b.left;
      if (overlap <= 1e-6) continue;
      clash = true;
      // Shrink the one with more room to give; a centred box frees half its shrink on each side.
      const spareA = a.width - a.min;
      const spareB = b.width - b.min;
      const target = spareA >= spareB ? a : b;
      const spare = Math.max(spareA, spareB);
      if (spare <= 1e-6) return null;
      const need = target.align === 'center' ? 2 * overlap : overlap;
      target.width -= Math.min(spare, need);
      target.left = boxOf(target.x, target.width, width, target.align);
    }
    if (!clash) break;
  }
  const fits = work.every((p, k) => {
    const next = work[k + 1];
    const inside = p.left >= -1e-6 && p.left + p.width <= width + 1e-6;
    return inside && (!next || p.left + p.width + gap <= next.left + 1e-6);
  });
  return fits ? work.map(({ index, row: r, left, width: w, align }) => ({ index, row: r, left, width: w, align })) : null;
}

function tryRows(sizes: readonly LabelSize[], rows: readonly (readonly number[])[], width: number, gap: number): PlacedLabel[] | null {
  const out: PlacedLabel[] = [];
  for (const [row, indices] of rows.entries()) {
    const packed = packRow(sizes, indices, row, width, gap);
    if (!packed) return null;
    out.push(...packed);
  }
  return out;
}

/** The index of the label nearest the middle of the track, other than the ends. */
function middleIndex(sizes: readonly LabelSize[], width: number): number | null {
  let best: number | null = null;
  let bestDistance = Infinity;
  for (const [i, s] of sizes.entries()) {
    const d = Math.abs(s.x - width / 2);
    if (i > 0 && i + 1 < sizes.length && d < bestDistance) {
      best = i;
      bestDistance = d;
    }
  }
  return best;
}

/** The layout of the labels `sizes` (in tick order) on a track `width` px wide. */
export function layoutAnchors(sizes: readonly LabelSize[], width: number, gap = 8): AnchorLayout {
  const all = sizes.map((_, i) => i);
  if (sizes.length === 0) return { rows: 1, labels: [], fits: true };
  const last = sizes.length - 1;
  const mid = middleIndex(sizes, width);
  const ends = last === 0 ? [0] : [0, last];
  const candidates: (readonly (readonly number[])[])[] = [
    [all],
    [all.filter((i) => i % 2 === 0), all.filter((i) => i % 2 === 1)],
    mid === null ? [ends] : [[0, mid, last]],
    [ends],
  ];
  for (const rows of candidates) {
    const nonEmpty = rows.filter((r) => r.length > 0);
    const labels = tryRows(sizes, nonEmpty, width, gap);
    if (labels) return { rows: nonEmpty.length, labels, fits: true };
  }
  // Nothing fits (a very narrow track): the ends in a row each, at their narrowest.
  const labels = ends.flatMap((index, row) => {
    const s = sizes[index];
    if (!s) return [];
    const align = alignOf(s.x, width);
    const w = Math.min(s.minContent, width);
    return [{ index, row, left: boxOf(s.x, w, width, align), width: w, align }];
  });
  return { rows: ends.length, labels, fits: false };
}
