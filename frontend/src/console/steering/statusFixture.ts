/** A steering service and its state as the backend serves them (the contract of issue 33), for the tests. */
import type { DirectionKpis, SteeringService, SteeringState } from './steeringTypes';

export const T0 = 1_790_000_000;

export const service: SteeringService = {
  id: 7,
  name: 'Lab steer',
  status_url: 'http://127.0.0.1:8790',
  ca_cert: '',
  ca_fingerprints: [],
  created_at: '2026-11-28T10:00:00Z',
  updated_at: '2026-11-28T10:00:00Z',
};

export function kpis(p95: number, loss: number, sent = 50, received = 50): DirectionKpis {
  return { sent, received, loss_pct: loss, delay_ms_p50: p95 * 0.8, delay_ms_p95: p95, delay_ms_p99: p95 * 1.1, jitter_ms: 1.5 };
}

/** Path a over the delay bound upstream; b fine and active; c stale. */
export function steeringState(): SteeringState {
  return {
    fetched_at_unix: T0 + 12,
    round_trip_ms: 3.2,
    status: {
      service: 'qoe-steer',
      version: '1.0.0',
      started_at_unix: T0,
      policy: {
        source: 'fixtures/policies/dissertation_shape.policy.json',
        schema: 'urn:qoe-lab:schema:qoe-policy:2.0',
        generated_at: '2026-11-20T10:00:00Z',
        target: 'acceptable',
        application: 'cloud-gaming',
      },
      actuator: { kind: 'dry-run', healthy: true, detail: null },
      settings: { window_s: 1, probe_interval_s: 0.02, dwell_s: 0.5, hysteresis: 0.2, stale_after_s: 1.5, delay_percentile: 'p95' },
      paths: [
        {
          id: 'a',
          port: 1,
          measurement: { at_unix: T0 + 10, window_s: 1, fresh: true, stale_reason: null, upstream: kpis(95, 0), downstream: kpis(30, 0.5, 200, 199) },
        },
        {
          id: 'b',
          port: 2,
          measurement: { at_unix: T0 + 10, window_s: 1, fresh: true, stale_reason: null, upstream: kpis(21, 0), downstream: kpis(20, 0) },
        },
        {
          id: 'c',
          port: 3,
          measurement: {
            at_unix: T0 + 2,
            window_s: 1,
            fresh: false,
            stale_reason: 'no probe answered for 1.8 s',
            upstream: kpis(20, 0, 50, 0),
            downstream: kpis(20, 0, 50, 0),
          },
        },
      ],
      classes: [
        {
          class: 'cloud-gaming.fast',
          pace: 'fast',
          bounds: {
            upstream: { delay_ms: 72.7, loss_pct: 0.36, jitter_ms: null },
            downstream: { delay_ms: 72.7, loss_pct: 0.36, jitter_ms: null },
          },
          acceptable_paths: ['b'],
          flows: [{ flow: 'game', active_path: 'b', since_unix: T0 + 9.2, pending: null }],
        },
      ],
      alarms: [{ code: 'probes_lost', message: 'path c: no probe answered', since_unix: T0 + 3 }],
      events: [
        {
          at_unix: T0,
          kind: 'start',
          flow: null,
          class: null,
          from_path: null,
          to_path: null,
          measurement: null,
          bounds: null,
          action: 'start',
          time_to_effect_s: null,
          message: 'started with the dry-run actuator',
        },
        {
          at_unix: T0 + 9.2,
          kind: 'moved',
          flow: 'game',
          class: 'cloud-gaming.fast',
          from_path: 'a',
          to_path: 'b',
          measurement: {},
          bounds: {},
          action: 'output 1 -> 2',
          time_to_effect_s: 0.004,
          message: 'path a violates upstream delay 95.0 > 72.7 ms',
        },
      ],
    },
  };
}
