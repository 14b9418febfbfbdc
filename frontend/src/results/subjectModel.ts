/**
 * The subject model of the analysis document (`doc.subject_model`, analysis
 * subject_model.py: rating = ψ[condition] + Δ[rater] + υ[rater]·ε, maximum likelihood as in
 * the ITU-T P.910 annex and sureal) read for the explorer: each rater's bias and
 * inconsistency with their ITU-T P.913 screening status, and each condition's quality ψ
 * beside its MOS.
 */
import type { AnalysisDoc, Condition, RaterStatus, SubjectCondition } from './analysisTypes';
import { intervalStatus, mosScale } from './evidence';
import type { IntervalStatus } from './evidence';

/** A P.913 status, or `unscreened` for documents stored before the P.913 screening. */
export type P913Status = RaterStatus | 'unscreened';

export const P913_TEXT: Record<P913Status, string> = {
  reliable: 'P.913 reliable',
  unreliable: 'P.913 unreliable',
  not_assessable: 'P.913 not assessable',
  unscreened: 'no P.913 screening in this analysis',
};

export interface RaterPoint {
  rater: string;
  n: number | null;
  bias: number;
  biasLow: number | null;
  biasHigh: number | null;
  inconsistency: number;
  inconsistencyLow: number | null;
  inconsistencyHigh: number | null;
  /** Connected part of the design (0 = the main one): biases compare within a block only. */
  block: number;
  p913: P913Status;
  p913Reason: string;
}

/** A rater or a condition the model left out, with the document's reason. */
export interface LeftOut {
  id: string;
  reason: string;
}

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
const orNull = (v: number | null | undefined): number | null => (finite(v) ? v : null);

/** Rater → P.913 status and reason: the screening's own table, else `rater_status`. */
export function p913Statuses(doc: AnalysisDoc): Map<string, { status: P913Status; reason: string }> {
  const perRater = doc.reliability.screening?.p913?.per_rater;
  if (perRater) return new Map(perRater.map((r) => [r.rater_id, { status: r.status, reason: r.reason }]));
  const statuses = new Map<string, { status: P913Status; reason: string }>();
  for (const entry of doc.reliability.rater_status ?? []) {
    const status = entry.p913;
    if (status === 'reliable' || status === 'unreliable' || status === 'not_assessable') statuses.set(entry.rater_id, { status, reason: '' });
  }
  return statuses;
}

/**
 * Why the model has no estimate at all: the document's note, else the reasons of its
 * `not_identifiable` list, else (a document stored before the subject model) that.
 */
export function subjectModelReason(doc: AnalysisDoc): string {
  const note = doc.notes?.subject_model;
  if (note) return note;
  const model = doc.subject_model;
  if (!model) return 'this analysis was stored before the subject model existed: run the analysis again';
  const reasons = [...new Set((model.not_identifiable ?? []).map((i) => i.reason))];
  return reasons.length ? `not identifiable: ${reasons.join('; ')}` : 'the subject model could not be fitted';
}

/** Why no condition has a quality estimate (documents stored before it was reported too). */
export function qualityReason(doc: AnalysisDoc): string {
  const model = doc.subject_model;
  if (!doc.notes?.subject_model && model && !model.conditions && model.raters.some((r) => finite(r.bias))) {
    return 'this analysis was stored before the per-condition quality was reported: run the analysis again';
  }
  return subjectModelReason(doc);
}

/** The reason each listed rater (or condition) was left out, from `not_identifiable`. */
function leftOutReasons(doc: AnalysisDoc, key: 'raters' | 'conditions'): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const issue of doc.subject_model?.not_identifiable ?? []) {
    if (issue.kind === 'disconnected') continue; // fitted, as a block of their own
    for (const id of issue[key] ?? []) if (!reasons.has(id)) reasons.set(id, issue.reason);
  }
  return reasons;
}

/** The fitted raters as points (bias, inconsistency, CIs, P.913 status) and those left out. */
export function raterPoints(doc: AnalysisDoc): { points: RaterPoint[]; leftOut: LeftOut[]; screened: boolean } {
  const statuses = p913Statuses(doc);
  const reasons = leftOutReasons(doc, 'raters');
  const points: RaterPoint[] = [];
  const leftOut: LeftOut[] = [];
  for (const r of doc.subject_model?.raters ?? []) {
    if (!finite(r.bias) || !finite(r.inconsistency)) {
      leftOut.push({ id: r.rater_id, reason: reasons.get(r.rater_id) ?? 'not fitted' });
      continue;
    }
    const p913 = statuses.get(r.rater_id);
    points.push({
      rater: r.rater_id,
      n: r.n ?? null,
      bias: r.bias,
      biasLow: orNull(r.bias_ci95_low),
      biasHigh: orNull(r.bias_ci95_high),
      inconsistency: r.inconsistency,
      inconsistencyLow: orNull(r.inconsistency_ci95_low),
      inconsistencyHigh: orNull(r.inconsistency_ci95_high),
      block: r.block ?? 0,
      p913: p913?.status ?? 'unscreened',
      p913Reason: p913?.reason ?? '',
    });
  }
  return { points, leftOut, screened: statuses.size > 0 };
}

const f2 = (v: number) => v.toFixed(2);

/** The tooltip lines of a rater: id, bias ± CI, inconsistency (± CI), P.913 status. */
export function raterTooltip(p: RaterPoint): string[] {
  const ci = (low: number | null, high: number | null) => (low !== null && high !== null ? ` (95 % CI ${f2(low)} … ${f2(high)})` : '');
  return [
    `Rater ${p.rater}${p.n !== null ? ` (${p.n} ratings)` : ''}${p.block > 0 ? `, design block ${p.block}` : ''}`,
    `Bias ${p.bias >= 0 ? '+' : ''}${f2(p.bias)}${ci(p.biasLow, p.biasHigh)}`,
    `Inconsistency ${f2(p.inconsistency)}${ci(p.inconsistencyLow, p.inconsistencyHigh)}`,
    `${P913_TEXT[p.p913]}${p.p913Reason ? `: ${p.p913Reason}` : ''}`,
  ];
}

export interface QualityRow {
  scenario: string;
  game: string;
  /** Ratings of the condition in the MOS (the document's `conditions`). */
  n: number | null;
  mos: number | null;
  mosLow: number | null;
  mosHigh: number | null;
  quality: number | null;
  qualitySe: number | null;
  qualityLow: number | null;
  qualityHigh: number | null;
  block: number;
  /** `ci95_status` of the MOS interval and of ψ's interval (null: no value). */
  mosStatus: IntervalStatus | null;
  qualityStatus: IntervalStatus | null;
}

/**
 * One row per condition of the model, in the order games × scenarios (as the other
 * figures), with the MOS and its t-CI of the same scenario × game from `doc.conditions`.
 */
export function qualityRows(doc: AnalysisDoc, games: readonly string[], scenarios: readonly string[]): QualityRow[] {
  const mos = new Map<string, Condition>(doc.conditions.map((c) => [`${c.game}\u0000${c.scenario}`, c]));
  const rank = (list: readonly string[], v: string) => (list.includes(v) ? list.indexOf(v) : list.length);
  const scale = mosScale(doc);
  const conds: SubjectCondition[] = [...(doc.subject_model?.conditions ?? [])].sort(
    (a, b) => rank(games, a.game) - rank(games, b.game) || rank(scenarios, a.scenario) - rank(scenarios, b.scenario),
  );
  return conds.map((c) => {
    const m = mos.get(`${c.game}\u0000${c.scenario}`);
    return {
      scenario: c.scenario,
      game: c.game,
      n: m?.n ?? c.n,
      mos: orNull(m ? m.mos : c.mos),
      mosLow: orNull(m?.ci95_low),
      mosHigh: orNull(m?.ci95_high),
      quality: orNull(c.quality),
      qualitySe: orNull(c.quality_se),
      qualityLow: orNull(c.ci95_low),
      qualityHigh: orNull(c.ci95_high),
      block: c.block,
      mosStatus: m ? intervalStatus(m, scale) : null,
      // ψ's interval comes from the Fisher information, not from n
      qualityStatus: intervalStatus({ mos: c.quality, ci95_low: c.ci95_low, ci95_high: c.ci95_high, ci95_status: (c as { ci95_status?: unknown }).ci95_status }, scale),
    };
  });
}

/** The conditions without a quality estimate, with the reason from `not_identifiable`. */
export function conditionsLeftOut(doc: AnalysisDoc, rows: readonly QualityRow[]): LeftOut[] {
  const reasons = leftOutReasons(doc, 'conditions');
  return rows
    .filter((r) => r.quality === null)
    .map((r) => {
      const id = `${r.scenario} × ${r.game}`;
      return { id, reason: reasons.get(id) ?? 'only raters the model left out rated it' };
    });
}
