import type { Impairment } from '../api';

export interface ScenarioPreset {
  code: string;
  label: string;
  is_baseline: boolean;
  upstream: Impairment;
  downstream: Impairment;
}

const d = (delay_ms: number, loss_pct: number): Impairment => ({ delay_ms, jitter_ms: 0, loss_pct });

/**
 * Table 4.1 of the source study (Jarschel, Würzburg 2014, ch. 4.2): ten scenarios, delay
 * one-way per direction, loss per direction; A1 impairs only client→server (upstream), A2
 * only server→client (downstream). Same values as fixtures/studies/cloud-gaming-2014.json.
 */
export const TABLE_4_1: readonly ScenarioPreset[] = [
  { code: 'B', label: 'Baseline: no impairment', is_baseline: true, upstream: d(0, 0), downstream: d(0, 0) },
  { code: 'D1', label: 'Delay at the perception threshold (160 ms RTT)', is_baseline: false, upstream: d(80, 0), downstream: d(80, 0) },
  { code: 'D2', label: 'Delay that noticeably disturbs play (400 ms RTT)', is_baseline: false, upstream: d(200, 0), downstream: d(200, 0) },
  { code: 'D3', label: 'Delay expected to make play impossible (600 ms RTT)', is_baseline: false, upstream: d(300, 0), downstream: d(300, 0) },
  { code: 'L1', label: 'Loss only, 0.3 % per direction', is_baseline: false, upstream: d(0, 0.3), downstream: d(0, 0.3) },
  { code: 'L2', label: 'Loss only, 1 % per direction', is_baseline: false, upstream: d(0, 1), downstream: d(0, 1) },
  { code: 'M1', label: 'Mixed, loss-dominated', is_baseline: false, upstream: d(40, 1.5), downstream: d(40, 1.5) },
  { code: 'M2', label: 'Mixed, delay-dominated', is_baseline: false, upstream: d(180, 0.3), downstream: d(180, 0.3) },
  { code: 'A1', label: 'Asymmetric: client→server only', is_baseline: false, upstream: d(120, 1), downstream: d(0, 0) },
  { code: 'A2', label: 'Asymmetric: server→client only', is_baseline: false, upstream: d(0, 0), downstream: d(120, 1) },
];
