/**
 * The QoE policy document (`GET /api/v1/studies/{id}/policy/`, built by
 * `qoe_analysis.policy.build_policy`; schema `urn:qoe-lab:schema:qoe-policy:1.0`, see
 * docs/policy.md) — only the keys the Policy tab reads — and the controller formats of
 * `qoe_analysis.policy.export.FORMATS`.
 */
import { ApiError } from '../api';

export interface MetricBound {
  metric_type: string;
  metric_unit: string;
  bound: number | null;
  basis: string;
  ci95: { low: number; high: number; source?: string } | null;
  interval?: { low: number | null; high: number | null; kind: string; estimator?: string; extrapolated?: boolean } | null;
  tested_bracket?: [number, number] | null;
  note?: string;
}

export interface PolicyClass {
  id: string;
  pace?: string | null;
  games: string[];
  status: string;
  directions: Record<string, { metric_bounds: MetricBound[] }>;
  mapping?: { '5qi'?: { value: number | null }; y1541?: { value: number | null }; dscp?: { name: string; value: number } };
}

export interface PolicyDoc {
  policy_version: string;
  target: { acceptable_from: number; label?: string; criterion?: string };
  provenance: { study?: { id: unknown; title?: string; version?: unknown }; n_raters?: number; n_ratings?: number; reliable_only?: boolean; generated_at?: string };
  classes: PolicyClass[];
}

/** The export formats (qoe_analysis.policy.export.FORMATS), file suffix and how to load each (docs/policy.md). */
export const POLICY_FORMATS = [
  { format: 'json', label: 'Policy JSON', suffix: 'json', howTo: 'The policy document itself (schema urn:qoe-lab:schema:qoe-policy:1.0), with every bound, CI and basis. Check measured paths with `qoe-analysis policy check POLICY.json --measurements M.json`, or re-export it with `qoe-analysis policy export POLICY.json --format faucet`.' },
  { format: 'faucet', label: 'Faucet (YAML)', suffix: 'yaml', howTo: 'Merge its `meters`, `acls` and `dps` into faucet.yaml (adapt dp_id and the interface numbers to your switch), check with `check_faucet_config faucet.yaml`, then reload Faucet (SIGHUP or `systemctl reload faucet`).' },
  { format: 'ovs', label: 'Open vSwitch (shell script)', suffix: 'sh', howTo: 'For a bridge without a controller: check the bridge (br0) and port names (server0, client0) match yours, then run it as root on the switch host: `sudo sh FILE.sh`. Queues shape on kernel-datapath ports only.' },
  { format: 'onos', label: 'ONOS (REST requests)', suffix: 'json', howTo: 'Each entry of `requests` is one REST call: send its `body` as JSON with `method` to http://ONOS:8181 + `path` (e.g. `curl -u onos:rocks -X POST -H "Content-Type: application/json" -d @body.json URL`), meters before intents. Loss bounds and DSCP marks cannot be expressed (see `not_expressed`).' },
  { format: 'rest_qos', label: 'os-ken/Ryu rest_qos (REST requests)', suffix: 'json', howTo: 'Run `ryu.app.rest_qos` (with ofctl_rest); send each entry in order to the app (default http://CONTROLLER:8080 + `path`): first the PUT of the OVSDB address, then queues, meters and rules.' },
  { format: 'ietf', label: 'IETF network slice (RFC 7951 JSON)', suffix: 'json', howTo: 'ietf-network-slice-service (draft-ietf-teas-ietf-network-slice-nbi-yang): POST it to your slice controller’s RESTCONF datastore (`/restconf/data/`). Loss is in ppm; the CI and basis are in each bound’s value-description.' },
] as const;

export type PolicyFormat = (typeof POLICY_FORMATS)[number]['format'];

export interface BoundRow {
  classId: string;
  games: string;
  status: string;
  direction: string;
  kpi: string;
  bound: string;
  ci: string;
  basis: string;
  note: string;
}

const METRIC_TEXT: Record<string, string> = { 'one-way-delay-maximum': 'max one-way delay', 'one-way-packet-loss': 'max packet loss', 'one-way-delay-variation-maximum': 'max jitter' };
const UNIT_TEXT: Record<string, string> = { milliseconds: 'ms', percent: '%' };

function num(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  return String(Math.round(v * 100) / 100);
}

/** One row per class × direction × metric bound; a class without bounds gets one row saying why. */
export function boundRows(policy: PolicyDoc): BoundRow[] {
  return policy.classes.flatMap((c) => {
    const base = { classId: c.id, games: c.games.join(', '), status: c.status };
    const rows = Object.entries(c.directions).flatMap(([direction, d]) =>
      d.metric_bounds.map((b) => {
        const unit = UNIT_TEXT[b.metric_unit] ?? b.metric_unit;
        const interval = b.ci95 ?? (b.interval && b.interval.low !== null ? { low: b.interval.low, high: b.interval.high ?? Number.NaN } : null);
        const kind = b.ci95 ? '95 % CI' : b.interval?.kind.replace(/_/g, ' ') ?? '';
        return {
          ...base,
          direction,
          kpi: METRIC_TEXT[b.metric_type] ?? b.metric_type,
          bound: b.bound === null ? (c.status === 'not_acceptable_at_zero' ? 'not acceptable even without impairment' : 'no bound') : `${num(b.bound)} ${unit}`,
          ci: interval ? `${Number.isFinite(interval.high) ? `${num(interval.low)}–${num(interval.high)}` : `≥ ${num(interval.low)}`} ${unit} (${kind}${b.interval?.extrapolated ? ', extrapolated' : ''})` : '—',
          basis: b.basis.replace(/_/g, ' '),
          note: b.note ?? '',
        };
      }),
    );
    return rows.length ? rows : [{ ...base, direction: '—', kpi: '—', bound: c.status === 'not_acceptable_at_zero' ? 'not acceptable even without impairment' : 'no KPI factor varies', ci: '—', basis: '—', note: '' }];
  });
}

/** A failed policy request in plain words (the API's own detail kept). */
export function policyErrorText(error: unknown): string {
  if (error instanceof ApiError) {
    const detail = error.detail ? ` (${error.detail})` : '';
    if (error.status === 409) return `There is no finished analysis of the current study version yet, and the policy is built from it. Open the Results tab to run the analysis, then come back${detail}.`;
    if (error.status === 400) return `A setting is not valid${detail}.`;
    if (error.status === 404) return `Not found: the study does not exist, you have no access, or the format is unknown${detail}.`;
    if (error.status === 403 || error.status === 401) return 'You are not signed in as a researcher of this study.';
  }
  return error instanceof Error ? error.message : String(error);
}

export interface PolicyParams {
  reliableOnly: boolean;
  serverIp: string;
  serverPort: string;
  protocol: 'udp' | 'tcp';
}

export function policyQuery(p: PolicyParams): string {
  const q = new URLSearchParams();
  if (p.reliableOnly) q.set('reliable_only', 'true');
  if (p.serverIp.trim()) {
    q.set('server_ip', p.serverIp.trim());
    if (p.serverPort.trim()) q.set('server_port', p.serverPort.trim());
    q.set('protocol', p.protocol);
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const policyPath = (studyId: number, format: PolicyFormat | null, params: PolicyParams): string =>
  `/api/v1/studies/${studyId}/policy/${format === null ? '' : `${format}/`}${policyQuery(params)}`;
