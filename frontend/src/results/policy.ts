/**
 * The QoE policy document (`GET /api/v1/studies/{id}/policy/`, built by
 * `qoe_analysis.policy.build_policy`; schema `urn:qoe-lab:schema:qoe-policy:2.0`, see
 * docs/policy.md) — only the keys the Policy tab reads — and the controller formats of
 * `qoe_analysis.policy.export.FORMATS`. Keys of 2.0 (each class's `joint` corner, the
 * provenance's `dry_run_share` and `warnings`) are optional: a 1.0 document has none.
 */
import { ApiError } from '../api';
import { factorInfo } from './factors';

/** Policy 1.0's bound, kept in 2.0 as the marginal estimate (`estimates.marginal`): one factor at a time, the others at baseline. */
export interface MarginalBound {
  metric_type: string;
  metric_unit: string;
  bound: number | null;
  basis: string;
  ci95: { low: number; high: number; source?: string } | null;
  interval?: { low: number | null; high: number | null; kind: string; estimator?: string; extrapolated?: boolean } | null;
  tested_bracket?: [number, number] | null;
  note?: string;
}

/** A bound of policy 2.0: the class's joint corner value of one direction's factor (null: no joint bound). */
export interface MetricBound {
  metric_type: string;
  metric_unit: string;
  bound: number | null;
  basis: string;
  /** The factor column: `ds_X`, `us_X` or `both_X` (one factor for both directions). */
  factor?: string;
  tested_max?: number | null;
  estimates?: { marginal: MarginalBound | null };
  note?: string;
}

/**
 * A class's joint corner (policy 2.0): every bound reached at once, where the joint
 * logistic model's lower 95 % bound of P(acceptable) still meets `target`; `corner` is
 * null (with `reason`) where the data support no joint region.
 */
export interface JointCorner {
  status: string;
  reason?: string | null;
  corner?: Record<string, number> | null;
  predicted?: number | null;
  predicted_ci95?: [number, number] | null;
  observed_share?: number | null;
  observed_n?: number | null;
  target?: number | null;
  /** The share t of the tested maxima at the corner (every maximum scaled along one ray). */
  scale?: number | null;
  extrapolated?: boolean | null;
}

export interface PolicyClass {
  id: string;
  pace?: string | null;
  games: string[];
  status: string;
  directions: Record<string, { metric_bounds: MetricBound[] }>;
  joint?: JointCorner | null;
  mapping?: { '5qi'?: { value: number | null }; y1541?: { value: number | null }; dscp?: { name: string; value: number } };
}

/** One of the analysis' warnings, as the policy's provenance carries them. */
export interface PolicyWarning {
  code: string;
  message: string;
  where?: string;
}

export interface PolicyProvenance {
  study?: { id: unknown; title?: string; version?: unknown };
  n_raters?: number;
  n_ratings?: number;
  n_ratings_dry_run?: number | null;
  dry_run_share?: number | null;
  warnings?: PolicyWarning[];
  reliable_only?: boolean;
  generated_at?: string;
}

export interface PolicyDoc {
  policy_version: string;
  target: { acceptable_from: number; label?: string; criterion?: string };
  provenance: PolicyProvenance;
  classes: PolicyClass[];
}

/** The export formats (qoe_analysis.policy.export.FORMATS), file suffix and how to load each (docs/policy.md). */
export const POLICY_FORMATS = [
  { format: 'json', label: 'Policy JSON', suffix: 'json', howTo: 'The policy document itself (schema urn:qoe-lab:schema:qoe-policy:2.0), with every bound, CI and basis, each class’s joint corner and the provenance (raters, dry-run share, warnings). Check measured paths with `qoe-analysis policy check POLICY.json --measurements M.json`, or re-export it with `qoe-analysis policy export POLICY.json --format faucet`.' },
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
  /** The marginal estimate (policy 1.0's bound) with its interval, for comparison. */
  marginal: string;
  basis: string;
  note: string;
}

const METRIC_TEXT: Record<string, string> = { 'one-way-delay-maximum': 'max one-way delay', 'one-way-packet-loss': 'max packet loss', 'one-way-delay-variation-maximum': 'max jitter' };
const UNIT_TEXT: Record<string, string> = { milliseconds: 'ms', percent: '%' };

function num(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  return String(Math.round(v * 100) / 100);
}

/** "130 ms (120–180 ms, tested bracket, extrapolated)": a marginal estimate and its interval. */
export function marginalText(m: MarginalBound | null | undefined): string {
  if (!m) return '—';
  const unit = UNIT_TEXT[m.metric_unit] ?? m.metric_unit;
  if (m.bound === null) return m.basis === 'not_acceptable_at_zero' ? 'not acceptable even without impairment' : 'none';
  const interval = m.ci95 ?? (m.interval && m.interval.low !== null ? { low: m.interval.low, high: m.interval.high ?? Number.NaN } : null);
  const kind = m.ci95 ? '95 % CI' : m.interval?.kind.replace(/_/g, ' ') ?? '';
  const range = interval ? ` (${Number.isFinite(interval.high) ? `${num(interval.low)}–${num(interval.high)}` : `≥ ${num(interval.low)}`} ${unit}, ${kind}${m.interval?.extrapolated ? ', extrapolated' : ''})` : '';
  return `${num(m.bound)} ${unit}${range}`;
}

/** One row per class × direction × metric bound; a class without bounds gets one row saying why. */
export function boundRows(policy: PolicyDoc): BoundRow[] {
  return policy.classes.flatMap((c) => {
    const base = { classId: c.id, games: c.games.join(', '), status: c.status };
    // the reason is the class's (its joint corner row says it once, not on every bound)
    const none = c.joint?.reason ? 'no joint bound (why: see the joint corner)' : 'no joint bound';
    const rows = Object.entries(c.directions).flatMap(([direction, d]) =>
      d.metric_bounds.map((b) => ({
        ...base,
        direction,
        kpi: `${METRIC_TEXT[b.metric_type] ?? b.metric_type}${b.factor?.startsWith('both_') ? ' (both directions, one factor)' : ''}`,
        bound: b.bound === null ? none : `${num(b.bound)} ${UNIT_TEXT[b.metric_unit] ?? b.metric_unit}`,
        marginal: marginalText(b.estimates?.marginal),
        basis: b.basis.replace(/_/g, ' '),
        note: b.note ?? '',
      })),
    );
    return rows.length ? rows : [{ ...base, direction: '—', kpi: '—', bound: c.status === 'no_joint_bound' ? none : 'no KPI factor varies', marginal: '—', basis: '—', note: '' }];
  });
}

const pct = (v: number) => `${String(Math.round(v * 1000) / 10)} %`;

export interface JointRow {
  classId: string;
  games: string;
  status: string;
  /** "downstream delay ≤ 80 ms, loss ≤ 1 % (both directions)", or why there is none. */
  corner: string;
  predicted: string;
  observed: string;
  target: string;
}

/** "Downstream delay 80 ms" for a corner's column and value (a merged `both_` factor named so). */
export function cornerPart(column: string, value: number): string {
  const info = factorInfo(null, column);
  const where = info.direction === 'both' ? 'both directions' : info.direction;
  const unit = info.unit ? ` ${info.unit}` : '';
  return `${where} ${info.label.toLowerCase()} ≤ ${num(value)}${unit}`;
}

/** One row per class with a joint corner (policy 2.0); none for a 1.0 document. */
export function jointRows(policy: PolicyDoc): JointRow[] {
  return policy.classes.flatMap((c) => {
    const j = c.joint;
    if (!j) return [];
    const corner = j.corner && Object.keys(j.corner).length > 0 ? Object.entries(j.corner).map(([col, v]) => cornerPart(col, v)).join(', ') : `no joint bound${j.reason ? `: ${j.reason}` : ''}`;
    const ci = j.predicted_ci95 ? ` (95 % CI ${pct(j.predicted_ci95[0])}–${pct(j.predicted_ci95[1])})` : '';
    const where = j.extrapolated ? ' (beyond the tested combinations: extrapolated)' : '';
    return [
      {
        classId: c.id,
        games: c.games.join(', '),
        status: j.status.replace(/_/g, ' '),
        corner: j.corner && Object.keys(j.corner).length > 0 ? `${corner}${where}` : corner,
        predicted: j.predicted === null || j.predicted === undefined ? '—' : `${pct(j.predicted)}${ci}`,
        observed: j.observed_share === null || j.observed_share === undefined ? `— (${String(j.observed_n ?? 0)} ratings near the corner)` : `${pct(j.observed_share)} of ${String(j.observed_n ?? 0)} ratings`,
        target: j.target === null || j.target === undefined ? '—' : `≥ ${pct(j.target)}`,
      },
    ];
  });
}

/** The dry-run share of the ratings a policy was learnt from (null when unknown). */
export function dryRunShare(p: PolicyProvenance): number | null {
  if (typeof p.dry_run_share === 'number') return p.dry_run_share;
  if (typeof p.n_ratings_dry_run === 'number' && p.n_ratings) return p.n_ratings_dry_run / p.n_ratings;
  return null;
}

/** "12 of 72 ratings (16.7 %) were taken on a dry-run agent", "No rating …", or that it is unknown. */
export function dryRunText(p: PolicyProvenance): string | null {
  const share = dryRunShare(p);
  if (share === null) return p.dry_run_share === null ? 'The ratings carry no agent provenance (e.g. imported without it): whether any was taken on a dry-run agent is not known.' : null;
  if (share === 0) return 'No rating was taken on a dry-run agent.';
  const of = typeof p.n_ratings_dry_run === 'number' && p.n_ratings ? `${String(p.n_ratings_dry_run)} of ${String(p.n_ratings)} ratings` : 'Ratings';
  return `${of} (${pct(share)}) were taken on a dry-run agent: the impairment was not applied, so those ratings are of unimpaired play.`;
}

/** The API refused a policy learnt mostly from dry-run ratings (400, code `dry_run`). */
export function isDryRunRefusal(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 400) return false;
  const body = error.body;
  return typeof body === 'object' && body !== null && (body as { code?: unknown }).code === 'dry_run';
}

/** A failed policy request in plain words (the API's own detail kept). */
export function policyErrorText(error: unknown): string {
  if (isDryRunRefusal(error) && error instanceof ApiError) {
    return `The policy was learnt mostly from dry-run ratings (unimpaired play), so it is not exported without your explicit choice${error.detail ? ` (${error.detail})` : ''}.`;
  }
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
  /** Export a policy learnt mostly from dry-run ratings (the explicit "export anyway"). */
  allowDryRun?: boolean;
}

export function policyQuery(p: PolicyParams): string {
  const q = new URLSearchParams();
  if (p.reliableOnly) q.set('reliable_only', 'true');
  if (p.allowDryRun) q.set('allow_dry_run', 'true');
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
