import { describe, expect, it } from 'vitest';

import { appendHistory, delayBounds, MAX_POINTS } from './steeringHistory';
import { steeringState, T0 } from './statusFixture';
import { boundText, duration, eventLines, flowLines, kpiRows } from './steeringText';

const clock = (unix: number) => `t+${(unix - T0).toFixed(1)}`;

/** The value, or the test fails here (no non-null assertions). */
function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('missing in the fixture');
  return value;
}

describe('kpiRows', () => {
  const status = steeringState().status;
  const klass = must(status.classes[0]);
  const rows = kpiRows(status, klass);
  const row = (path: string, direction: string) => must(rows.find((r) => r.path === path && r.direction === direction));

  it('marks a value over its bound in words, only for the percentile the daemon compares', () => {
    const up = row('a', 'upstream');
    expect(up.delayP95).toEqual({ text: '95.0 ms (over bound)', over: true });
    // p50 (76 ms) and p99 are shown, not compared: the delay bound holds the p95
    expect(up.delayP50).toEqual({ text: '76.0 ms', over: false });
    expect(up.delayP99.over).toBe(false);
    expect(up.acceptable).toBe(false);
    expect(up.active).toBe(false);
  });

  it('marks loss over its bound and gives the probe counts', () => {
    const down = row('a', 'downstream');
    expect(down.loss).toEqual({ text: '0.50 % (over bound)', over: true });
    expect(down.counts).toBe('199/200');
    expect(down.n).toBe(199);
    expect(down.delayP95.over).toBe(false);
  });

  it('compares another percentile when the daemon says so', () => {
    const other = steeringState().status;
    other.settings.delay_percentile = 'p50';
    const up = must(kpiRows(other, must(other.classes[0])).find((r) => r.path === 'a' && r.direction === 'upstream'));
    expect(up.delayP50.over).toBe(true);
    expect(up.delayP95.over).toBe(false);
  });

  it('greys a stale path with the reason, and a path without measurement', () => {
    expect(row('c', 'upstream').stale).toBe('no probe answered for 1.8 s');
    expect(row('b', 'upstream').stale).toBeNull();
    const none = steeringState().status;
    must(none.paths[0]).measurement = null;
    const r = must(kpiRows(none, must(none.classes[0]))[0]);
    expect(r.stale).toBe('no measurement yet');
    expect(r.delayP95).toEqual({ text: '—', over: false });
  });

  it('knows the active and the acceptable path', () => {
    expect(row('b', 'downstream')).toMatchObject({ active: true, acceptable: true });
  });
});

describe('texts', () => {
  it('shows a bound rounded as its value, or none', () => {
    expect(boundText(72.7187177636298, 1, 'ms')).toBe('≤ 72.7 ms');
    expect(boundText(null, 2, '%')).toBe('none');
  });

  it('gives the active path per flow with since, and a pending move', () => {
    const state = steeringState();
    expect(flowLines(state.status, state.fetched_at_unix, clock)).toEqual([
      { klass: 'cloud-gaming.fast', flow: 'game', text: 'path b since t+9.2 (2.8 s)', pending: null },
    ]);
    must(must(state.status.classes[0]).flows[0]).pending = { to_path: 'a', since_unix: T0 + 11, reason: 'a is acceptable again' };
    expect(must(flowLines(state.status, state.fetched_at_unix, clock)[0]).pending).toBe('waiting to move to a since t+11.0: a is acceptable again');
  });

  it('lists the last events newest first with the time to effect', () => {
    const lines = eventLines(steeringState().status.events, clock);
    expect(lines.map((l) => [l.time, l.kind, l.flow, l.move, l.effect])).toEqual([
      ['t+9.2', 'moved', 'game', 'a → b', '4 ms'],
      ['t+0.0', 'start', '—', '—', '—'],
    ]);
    const many = Array.from({ length: 30 }, (_, i) => ({ ...must(steeringState().status.events[1]), at_unix: T0 + i }));
    const last = eventLines(many, clock);
    expect(last).toHaveLength(20);
    expect(must(last[0]).time).toBe('t+29.0');
  });

  it('formats durations', () => {
    expect(duration(2.84)).toBe('2.8 s');
    expect(duration(42.4)).toBe('42 s');
    expect(duration(185)).toBe('3 min 5 s');
  });
});

describe('delay history', () => {
  it('adds each fresh window once and leaves stale paths out', () => {
    const status = steeringState().status;
    const once = appendHistory({}, status);
    expect(Object.keys(once).sort()).toEqual(['a/downstream', 'a/upstream', 'b/downstream', 'b/upstream']);
    expect(once['a/upstream']).toEqual([{ at: T0 + 10, value: 95 }]);
    expect(appendHistory(once, status)).toBe(once); // the same window again: nothing new
    must(must(status.paths[0]).measurement).at_unix = T0 + 11;
    must(must(status.paths[0]).measurement).upstream.delay_ms_p95 = 50;
    expect(appendHistory(once, status)['a/upstream']).toEqual([
      { at: T0 + 10, value: 95 },
      { at: T0 + 11, value: 50 },
    ]);
  });

  it('keeps the last points only', () => {
    const status = steeringState().status;
    let history = {};
    for (let i = 0; i < MAX_POINTS + 5; i += 1) {
      must(must(status.paths[1]).measurement).at_unix = T0 + i;
      history = appendHistory(history, status);
    }
    const points = must((history as Record<string, { at: number }[] | undefined>)['b/upstream']);
    expect(points).toHaveLength(MAX_POINTS);
    expect(must(points[0]).at).toBe(T0 + 5);
  });

  it('draws one bound line per distinct delay bound', () => {
    expect(delayBounds(steeringState().status)).toEqual([
      { value: 72.7, label: 'bound 72.7 ms (cloud-gaming.fast upstream, cloud-gaming.fast downstream)' },
    ]);
  });
});
