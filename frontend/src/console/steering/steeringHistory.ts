/**
 * The delay history the console draws: each poll adds the measurement of every path and
 * direction once (keyed by the daemon's `at_unix`, so a poll that brings no new window adds
 * nothing), keeping the last {@link MAX_POINTS} per series. Stale windows are kept out: the
 * daemon does not decide on them either.
 */
import { delayKey } from './steeringText';
import { DIRECTIONS } from './steeringTypes';
import type { Direction, StatusDocument } from './steeringTypes';

export const MAX_POINTS = 150;

export interface Point {
  at: number;
  value: number;
}

/** Series key `path/direction` → points, oldest first. */
export type History = Record<string, Point[]>;

export const seriesKey = (path: string, direction: Direction): string => `${path}/${direction}`;

export function appendHistory(history: History, status: StatusDocument): History {
  const key = delayKey(status);
  let next: History | null = null;
  for (const path of status.paths) {
    const m = path.measurement;
    if (!m?.fresh) continue;
    for (const direction of DIRECTIONS) {
      const value = m[direction][key];
      if (value === null) continue;
      const name = seriesKey(path.id, direction);
      const points = (next ?? history)[name] ?? [];
      const last = points[points.length - 1];
      if (last !== undefined && last.at >= m.at_unix) continue;
      next ??= { ...history };
      next[name] = [...points, { at: m.at_unix, value }].slice(-MAX_POINTS);
    }
  }
  return next ?? history;
}

export interface BoundLine {
  label: string;
  value: number;
}

/** The delay bounds of the document's classes, one line per distinct value. */
export function delayBounds(status: StatusDocument): BoundLine[] {
  const lines = new Map<number, string[]>();
  for (const klass of status.classes) {
    for (const direction of DIRECTIONS) {
      const value = klass.bounds[direction].delay_ms;
      if (value === null) continue;
      const names = lines.get(value) ?? [];
      names.push(`${klass.class} ${direction}`);
      lines.set(value, names);
    }
  }
  return [...lines.entries()].map(([value, names]) => ({ value, label: `bound ${value.toFixed(1)} ms (${names.join(', ')})` }));
}
