/**
 * What the steering console shows of a `qoe-steer` status document, as plain data (the
 * components only lay it out). Marking a value "over" its bound is for reading only: the
 * daemon decides with the one policy evaluator, and its verdict is `acceptable_paths`.
 * Which delay percentile meets the delay bound is the daemon's `settings.delay_percentile`.
 */
import { DIRECTIONS } from './steeringTypes';
import type { ClassState, Direction, DirectionBounds, DirectionKpis, PathState, StatusDocument, SteerEvent } from './steeringTypes';

/** One measured value with its bound: `over` is true only when both exist and value > bound. */
export interface KpiCell {
  text: string;
  over: boolean;
}

function cell(value: number | null, bound: number | null, digits: number, unit: string): KpiCell {
  const over = value !== null && bound !== null && value > bound;
  const text = value === null ? '—' : `${value.toFixed(digits)} ${unit}`;
  return { text: over ? `${text} (over bound)` : text, over };
}

export interface KpiRow {
  path: string;
  port: string;
  direction: Direction;
  /** The daemon's verdict for the class (the shared evaluator), repeated on each row of the path. */
  acceptable: boolean;
  active: boolean;
  /** `null`: fresh; else why the row is greyed (no measurement, or the daemon's stale reason). */
  stale: string | null;
  delayP50: KpiCell;
  delayP95: KpiCell;
  delayP99: KpiCell;
  /** Samples behind the delay percentiles (the probes received in the window). */
  n: number | null;
  loss: KpiCell;
  /** `received/sent` probes of the window. */
  counts: string;
  jitter: KpiCell;
  bounds: DirectionBounds;
}

function staleReason(path: PathState): string | null {
  const m = path.measurement;
  if (m === null) return 'no measurement yet';
  if (m.fresh) return null;
  return m.stale_reason ?? 'stale';
}

/** The delay percentile the daemon holds against the delay bound (`p95` unless it says otherwise). */
export function delayKey(status: StatusDocument): 'delay_ms_p50' | 'delay_ms_p95' | 'delay_ms_p99' {
  const p = status.settings.delay_percentile;
  return p === 'p50' ? 'delay_ms_p50' : p === 'p99' ? 'delay_ms_p99' : 'delay_ms_p95';
}

/** Rows (path × direction) of one class's table, in the document's path order. */
export function kpiRows(status: StatusDocument, klass: ClassState): KpiRow[] {
  const compared = delayKey(status);
  const active = new Set(klass.flows.map((f) => f.active_path).filter((p): p is string => p !== null));
  const rows: KpiRow[] = [];
  for (const path of status.paths) {
    for (const direction of DIRECTIONS) {
      const kpis: DirectionKpis | null = path.measurement ? path.measurement[direction] : null;
      const bounds = klass.bounds[direction];
      const delay = (key: typeof compared) => cell(kpis ? kpis[key] : null, key === compared ? bounds.delay_ms : null, 1, 'ms');
      rows.push({
        path: path.id,
        port: String(path.port),
        direction,
        acceptable: klass.acceptable_paths.includes(path.id),
        active: active.has(path.id),
        stale: staleReason(path),
        delayP50: delay('delay_ms_p50'),
        delayP95: delay('delay_ms_p95'),
        delayP99: delay('delay_ms_p99'),
        n: kpis ? kpis.received : null,
        loss: cell(kpis ? kpis.loss_pct : null, bounds.loss_pct, 2, '%'),
        counts: kpis ? `${kpis.received}/${kpis.sent}` : '—',
        jitter: cell(kpis ? kpis.jitter_ms : null, bounds.jitter_ms, 1, 'ms'),
        bounds,
      });
    }
  }
  return rows;
}

/** One bound as shown beside its value: `≤ 72.7 ms`, or `none`. */
export function boundText(value: number | null, digits: number, unit: string): string {
  return value === null ? 'none' : `≤ ${value.toFixed(digits)} ${unit}`;
}

/** Seconds as `0.4 s`, `12 s`, `3 min 5 s`. */
export function duration(seconds: number): string {
  if (seconds < 10) return `${Math.max(0, seconds).toFixed(1)} s`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

export type Clock = (unix: number) => string;

export const localClock: Clock = (unix) => new Date(unix * 1000).toLocaleTimeString();

export interface FlowLine {
  klass: string;
  flow: string;
  text: string;
  pending: string | null;
}

/** The active path of each flow, with since when, and a move the daemon is waiting to make. */
export function flowLines(status: StatusDocument, now: number, clock: Clock): FlowLine[] {
  return status.classes.flatMap((klass) =>
    klass.flows.map((f) => {
      const since = f.since_unix === null ? '' : ` since ${clock(f.since_unix)} (${duration(now - f.since_unix)})`;
      const text = f.active_path === null ? 'no active path' : `path ${f.active_path}${since}`;
      const pending =
        f.pending === null
          ? null
          : `waiting to move to ${f.pending.to_path} since ${clock(f.pending.since_unix)}: ${f.pending.reason}`;
      return { klass: klass.class, flow: f.flow, text, pending };
    }),
  );
}

export interface EventLine {
  key: string;
  time: string;
  kind: string;
  flow: string;
  move: string;
  reason: string;
  effect: string;
}

/** The last `limit` events, newest first. */
export function eventLines(events: SteerEvent[], clock: Clock, limit = 20): EventLine[] {
  return events
    .slice(-limit)
    .reverse()
    .map((e, i) => ({
      key: `${e.at_unix}-${e.kind}-${i}`,
      time: clock(e.at_unix),
      kind: e.kind,
      flow: e.flow ?? '—',
      move: e.from_path !== null || e.to_path !== null ? `${e.from_path ?? '—'} → ${e.to_path ?? '—'}` : '—',
      reason: e.message,
      effect: e.time_to_effect_s === null ? '—' : `${(e.time_to_effect_s * 1000).toFixed(0)} ms`,
    }));
}
