/**
 * The screening rules of `doc.reliability` side by side (issue 31): the intra-rater
 * rule, ITU-T P.913 and straight-lining (and, where the study asked them, the ITU-T P.808
 * quality-control checks: trapping items and a hidden reference, issue 35), each with what it needs, whether it could judge
 * at all, and every rater's verdict with its reason; and the intra-rater ρ per rater for
 * fig. 4.2. "Not assessable" stays its own verdict and is never counted, coloured or
 * worded as reliable.
 */
import type { AnalysisDoc, RaterStatus } from './analysisTypes';
import { raterStatus } from './participants';

export type Verdict = RaterStatus | 'unscreened';

export const VERDICT_TEXT: Record<Verdict, string> = {
  reliable: 'reliable',
  unreliable: 'unreliable',
  not_assessable: 'not assessable',
  unscreened: 'not screened',
};

export interface RuleVerdict {
  status: Verdict;
  reason: string;
}

export interface ScreeningRow {
  rater: string;
  intra: RuleVerdict;
  p913: RuleVerdict;
  straight: RuleVerdict;
  /** ITU-T P.808 checks: reliable = passed, unreliable = failed (with the reasons). */
  qc: RuleVerdict;
}

export interface RuleSummary {
  rule: 'intra_rater' | 'p913' | 'straight_lining' | 'quality_control';
  title: string;
  /** What the rule needs to judge a rater. */
  needs: string;
  /** Whether the rule could judge at all (P.913: `status`), with the reason; null when the document does not say. */
  assessable: { ok: boolean; reason: string } | null;
  /** "8 of 12 conditions used" and the like; null when the document does not say. */
  evidence: string | null;
  counts: Record<Verdict, number>;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function isStatus(v: unknown): v is RaterStatus {
  return v === 'reliable' || v === 'unreliable' || v === 'not_assessable';
}

/** The P.913 section's issue-31 keys (absent in older documents). */
interface P913Extra {
  status?: unknown;
  reason?: unknown;
  min_raters_per_condition?: unknown;
  n_conditions_used?: unknown;
  n_conditions_total?: unknown;
}

function counts(verdicts: readonly Verdict[]): Record<Verdict, number> {
  const out: Record<Verdict, number> = { reliable: 0, unreliable: 0, not_assessable: 0, unscreened: 0 };
  for (const v of verdicts) out[v] += 1;
  return out;
}

/** Every rater of the document with the verdict and reason of each rule. */
export function screeningRows(doc: AnalysisDoc): ScreeningRow[] {
  const rel = doc.reliability;
  const intra = new Map(rel.intra.map((r) => [r.rater_id, raterStatus(r, rel.cutoff)]));
  const p913 = new Map((rel.screening?.p913?.per_rater ?? []).map((r) => [r.rater_id, { status: r.status, reason: r.reason }]));
  const straight = new Map((rel.screening?.straight_lining?.per_rater ?? []).map((r) => [r.rater_id, { status: r.status, reason: r.reason }]));
  // older documents: the statuses without their reasons
  for (const row of rel.rater_status ?? []) {
    if (!p913.has(row.rater_id) && isStatus(row.p913)) p913.set(row.rater_id, { status: row.p913, reason: '' });
    if (!straight.has(row.rater_id) && isStatus(row.straight_lining)) straight.set(row.rater_id, { status: row.straight_lining, reason: '' });
  }
  const qc = new Map((rel.screening?.quality_control?.per_rater ?? []).map((r) => [r.rater_id, { status: r.status, reason: r.reason }]));
  const none: RuleVerdict = { status: 'unscreened', reason: '' };
  const raters = [...new Set([...intra.keys(), ...p913.keys(), ...straight.keys(), ...qc.keys()])].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  return raters.map((rater) => ({ rater, intra: intra.get(rater) ?? none, p913: p913.get(rater) ?? none, straight: straight.get(rater) ?? none, qc: qc.get(rater) ?? none }));
}

/** Did the study ask quality-control questions (absent in older documents)? */
export function qcApplied(doc: AnalysisDoc): boolean {
  return doc.reliability.screening?.quality_control?.applied === true;
}

/** A quality-control verdict in words: "failed: trap 1: asked for 2 (Poor), answered 5". */
export function qcVerdictText(v: RuleVerdict): string {
  const word = v.status === 'reliable' ? 'passed' : v.status === 'unreliable' ? 'failed' : VERDICT_TEXT[v.status];
  return v.status === 'reliable' || !v.reason ? word : `${word}: ${v.reason}`;
}

/** Per rule: what it needs, whether it could judge, and how many raters got each verdict. */
export function ruleSummaries(doc: AnalysisDoc, rows: readonly ScreeningRow[] = screeningRows(doc)): RuleSummary[] {
  const rel = doc.reliability;
  const signed = signedIntraRule(doc);
  const p = (rel.screening?.p913 ?? {}) as P913Extra;
  const minRaters = num(p.min_raters_per_condition);
  const used = num(p.n_conditions_used);
  const total = num(p.n_conditions_total);
  const p913Status = str(p.status);
  const sl = (rel.screening?.straight_lining ?? {}) as { min_ratings_per_session?: unknown };
  const minSession = num(sl.min_ratings_per_session);
  return [
    {
      rule: 'intra_rater',
      title: 'Intra-rater consistency',
      needs: signed
        ? `per scenario group ≥ 4 ratings over ≥ 3 levels; reliable when ρ < −${rel.cutoff} and a random rater would pass with p ≤ 0.01`
        : `a scenario group with ≥ 2 levels; reliable when |ρ| > ${rel.cutoff}`,
      assessable: null,
      evidence: null,
      counts: counts(rows.map((r) => r.intra.status)),
    },
    {
      rule: 'p913',
      title: 'ITU-T P.913',
      needs: `conditions rated by ≥ ${minRaters ?? 4} raters${rel.screening?.p913 ? `; r1 ≥ ${rel.screening.p913.threshold}` : ''}`,
      assessable: p913Status === 'ok' || p913Status === 'not_assessable' ? { ok: p913Status === 'ok', reason: str(p.reason) } : null,
      evidence: used !== null && total !== null ? `${used} of ${total} conditions used${minRaters !== null ? ` (rated by ≥ ${minRaters} raters)` : ''}` : null,
      counts: counts(rows.map((r) => r.p913.status)),
    },
    {
      rule: 'straight_lining',
      title: 'Straight-lining (same score throughout a session)',
      needs: `sessions with ≥ ${minSession ?? 5} ratings`,
      assessable: null,
      evidence: minSession !== null ? `only sessions with ≥ ${minSession} ratings are judged` : null,
      counts: counts(rows.map((r) => r.straight.status)),
    },
    ...(qcApplied(doc)
      ? [
          {
            rule: 'quality_control' as const,
            title: 'Quality control (ITU-T P.808: traps, hidden reference)',
            needs: 'a trap answered as instructed; the hidden reference within a quarter of the scale (1 on ACR-5)',
            assessable: null,
            evidence: doc.reliability.screening?.quality_control?.excluded ? 'failed raters are excluded from the analysis' : 'failed raters are flagged, not excluded',
            counts: counts(rows.map((r) => r.qc.status)),
          },
        ]
      : []),
  ];
}

/** "reliable", "not assessable: only 2 ratings…": a verdict in words with its reason. */
export function verdictText(v: RuleVerdict): string {
  return v.reason ? `${VERDICT_TEXT[v.status]}: ${v.reason}` : VERDICT_TEXT[v.status];
}

// --- fig. 4.2: CDF of intra-rater ρ with the cut-off -----------------------------------------------

export interface IntraPoint {
  rater: string;
  rho: number;
  /** The drawn value: ρ under the signed rule, |ρ| in older documents. */
  x: number;
  p: number;
  status: RaterStatus;
  reason: string;
  n_ratings: number | null;
  p_random_pass: number | null;
}

/**
 * Whether the document judges intra-rater reliability by the signed rule (issue 31:
 * reliable iff mean ρ < −cut-off and a random rater would pass with p ≤ 0.01; the rows carry
 * `p_random_pass`), else by |ρ| > cut-off (older documents).
 */
export function signedIntraRule(doc: AnalysisDoc): boolean {
  return doc.reliability.intra.some((r) => 'p_random_pass' in r);
}

const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function intraRaterCdf(doc: AnalysisDoc): { points: IntraPoint[]; cutoff: number; signed: boolean; shareReliable: number; excluded: number } {
  const signed = signedIntraRule(doc);
  const cutoff = doc.reliability.cutoff;
  const valid = doc.reliability.intra.filter((r): r is typeof r & { rho: number } => typeof r.rho === 'number');
  const value = (rho: number) => (signed ? rho : Math.abs(rho));
  const sorted = [...valid].sort((a, b) => value(a.rho) - value(b.rho) || a.rater_id.localeCompare(b.rater_id));
  const n = sorted.length;
  const points = sorted.map((r, i) => {
    const { status, reason } = raterStatus(r, cutoff);
    return { rater: r.rater_id, rho: r.rho, x: value(r.rho), p: (i + 1) / n, status, reason, n_ratings: numOrNull(r.n_ratings), p_random_pass: numOrNull(r.p_random_pass) };
  });
  return {
    points,
    cutoff,
    signed,
    // the document's verdicts (never |ρ| alone: "not assessable" is not reliable)
    shareReliable: n ? points.filter((p) => p.status === 'reliable').length / n : 0,
    excluded: doc.reliability.intra.length - n,
  };
}
