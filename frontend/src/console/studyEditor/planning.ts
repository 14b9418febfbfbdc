/**
 * The design generator's planning hint (issue 31): how many raters per condition (scenario ×
 * game; each rater plays one game and rates every scenario once) a design needs for a 95 %
 * MOS interval of ±0.5, and whether its rater screens can judge at all. It mirrors the
 * analysis' `qoe_analysis.evidence.planning` (same formula, same prior) so that the hint is
 * there before any rating exists:
 *
 *  - interval: the smallest n ≥ 2 with t(0.975, n − 1)·sd/√n ≤ 0.5 (Student t, ITU-T
 *    P.1401 §7.3), sd the SOS hypothesis at mid-scale with the prior a = 0.25
 *    (SOS = √a·(H − L)/2 = (H − L)/4: 1.0 on ACR 1–5; Hoßfeld, Schatz & Egger, QoMEX 2011);
 *  - P.913 screening uses only conditions rated by ≥ 4 raters, and a rater needs ≥ 4 such
 *    conditions (`qoe_analysis.stats.p913`);
 *  - the intra-rater rule needs a one-factor-at-a-time group with ≥ 4 ratings over ≥ 3
 *    levels per session (`qoe_analysis.stats.intra_rater`), the groups derived from the
 *    scenarios as `qoe_analysis.stats.scenario_groups` derives them.
 */
import type { DesignScenario, FactorInfo, StudyDetail } from '../../api';
import { DIRECTION_KEYS, factorValue } from './factorForm';

export const HALF_WIDTH = 0.5;
/** The prior SOS parameter a (planning.PRIOR_SOS_A). */
export const PRIOR_SOS_A = 0.25;
/** P.913: raters per condition for it to be used; conditions a rater needs (p913.py). */
export const P913_MIN_RATERS = 4;
export const P913_MIN_CONDITIONS = 4;
/** Intra-rater rule: ratings and distinct levels of a group per session (intra_rater.py). */
export const INTRA_MIN_RATINGS = 4;
export const INTRA_MIN_LEVELS = 3;
/** Correlation modifiers do nothing alone: never a group of their own (study_factors.MODIFIER_KEYS). */
const MODIFIER_KEYS = new Set(['delay_correlation_pct', 'loss_correlation_pct', 'reorder_correlation_pct']);

// --- Student t quantile ---------------------------------------------------------------------

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; relative error below 1e-13). */
function lnGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const y = x - 1;
  let sum = c[0] ?? 0;
  for (let i = 1; i < 9; i++) sum += (c[i] ?? 0) / (y + i);
  const t = y + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The continued fraction of the regularized incomplete beta (modified Lentz; Numerical Recipes §6.4). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    for (const aa of [(m * (b - m) * x) / ((a + m2 - 1) * (a + m2)), (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))]) {
      d = 1 + aa * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + aa / c;
      if (Math.abs(c) < tiny) c = tiny;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-15) break;
  }
  return h;
}

/** I_x(a, b), the regularized incomplete beta function. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom: 1 − ½·I_{df/(df+t²)}(df/2, ½) for t ≥ 0. */
export function tCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The q-quantile (q in (½, 1)) of Student's t with `df` degrees of freedom, by bisection on {@link tCdf}. */
export function tQuantile(q: number, df: number): number {
  let low = 0;
  let high = 1;
  while (tCdf(high, df) < q) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const mid = (low + high) / 2;
    if (tCdf(mid, df) < q) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

// --- raters for the interval ------------------------------------------------------------------

/** SOS = √(a·(MOS − L)(H − MOS)) at mid-scale: √a·(H − L)/2 (planning.sos_sd). */
export const sosSd = (a: number, low: number, high: number): number => (Math.sqrt(a) * (high - low)) / 2;

/** z(0.975), the normal quantile of the 95 % interval. */
const Z_975 = 1.959963984540054;

/**
 * The smallest n ≥ 2 with t(0.975, n − 1)·sd/√n ≤ `halfWidth` (planning.raters_for_interval
 * at c = 0.95). t(0.975, n − 1) > z(0.975) for every n, so no n below (z·sd/h)² meets the rule:
 * the search starts there.
 */
export function ratersForInterval(sd: number, halfWidth = HALF_WIDTH): number {
  if (!(Number.isFinite(sd) && sd >= 0)) throw new Error(`sd must be a finite number >= 0, got ${String(sd)}`);
  if (!(Number.isFinite(halfWidth) && halfWidth > 0)) throw new Error(`halfWidth must be > 0, got ${String(halfWidth)}`);
  let n = Math.max(2, Math.ceil(((Z_975 * sd) / halfWidth) ** 2));
  while ((tQuantile(0.975, n - 1) * sd) / Math.sqrt(n) > halfWidth) n += 1;
  return n;
}

// --- the intra-rater groups of a design -------------------------------------------------------

export interface DesignGroup {
  /** The factor's registry label ("Delay"). */
  label: string;
  /** Scenarios of the group: ratings per session (each scenario is rated once). */
  ratings: number;
  levels: number;
}

/** The level closest to the factor's neutral value (the first such; a nominal factor: the neutral choice, else the first by name). */
function baselineOf(f: FactorInfo, values: readonly (number | string)[]): number | string {
  if (f.kind === 'nominal') return values.find((v) => String(v) === String(f.neutral)) ?? [...values].map(String).sort()[0] ?? '';
  const neutral = Number(f.neutral);
  return values.map(Number).reduce((best, v) => (Math.abs(v - neutral) < Math.abs(best - neutral) ? v : best), Number(values[0] ?? neutral));
}

const close = (a: number | string, b: number | string) => (typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) < 1e-9 : a === b);

/**
 * The one-factor-at-a-time groups of a design's scenarios (scenario_groups.scenario_groups):
 * per numeric factor (not a correlation modifier) that varies, the scenarios where every other
 * varying factor column is at its baseline (the level closest to the neutral value) and the
 * factor has the same value in each direction where it varies. Groups with ≥ 3 scenarios and
 * ≥ 2 levels, as the analysis keeps them.
 */
export function designGroups(scenarios: readonly DesignScenario[], factors: readonly FactorInfo[]): DesignGroup[] {
  const columns = factors.flatMap((f) => DIRECTION_KEYS.map((d) => ({ f, d, values: scenarios.map((s) => factorValue(s[d], f)) })));
  const varying = columns.filter((c) => new Set(c.values.map(String)).size > 1);
  const baseline = new Map<(typeof varying)[number], number | string>(varying.map((c) => [c, baselineOf(c.f, c.values)]));
  const groups: DesignGroup[] = [];
  for (const f of factors) {
    if (f.kind !== 'numeric' || MODIFIER_KEYS.has(f.key)) continue;
    const own = varying.filter((c) => c.f.key === f.key);
    if (own.length === 0) continue;
    const others = varying.filter((c) => c.f.key !== f.key);
    const levels: number[] = [];
    scenarios.forEach((_, i) => {
      const atBase = others.every((c) => close(c.values[i] ?? '', baseline.get(c) ?? ''));
      const first = own[0]?.values[i];
      if (atBase && first !== undefined && own.every((c) => close(c.values[i] ?? '', first))) levels.push(Number(first));
    });
    const distinct = new Set(levels).size;
    if (levels.length >= 3 && distinct >= 2) groups.push({ label: f.label, ratings: levels.length, levels: distinct });
  }
  return groups;
}

// --- the hint ---------------------------------------------------------------------------------

/**
 * The range of the scale the results describe: the study's first non-binary rating item's
 * (else its first item's; `qoe_analysis.scales.primary_item`), ACR 1–5 without items.
 */
export function primaryScale(study: Pick<StudyDetail, 'rating_items'>): { low: number; high: number } {
  const items = study.rating_items;
  const item = items.find((i) => i.scale.kind !== 'binary') ?? items[0];
  return item ? { low: item.scale.min, high: item.scale.max } : { low: 1, high: 5 };
}

export interface PlanningHint {
  sd: number;
  ratersForInterval: number;
  /** Raters per game for P.913 screening (each rates every scenario once: raters per condition). */
  ratersForP913: number;
  /** The design has enough scenarios for a rater's P.913 screening. */
  enoughConditions: boolean;
  groups: DesignGroup[];
  /** The first group the intra-rater rule can count (≥ 4 ratings over ≥ 3 levels), if any. */
  intraGroup: DesignGroup | null;
}

/** The hint for a design of `scenarios` rated on a scale of [low, high]. */
export function planningHint(scenarios: readonly DesignScenario[], factors: readonly FactorInfo[], low: number, high: number): PlanningHint {
  const sd = sosSd(PRIOR_SOS_A, low, high);
  const groups = designGroups(scenarios, factors);
  return {
    sd,
    ratersForInterval: ratersForInterval(sd),
    ratersForP913: P913_MIN_RATERS,
    enoughConditions: scenarios.length >= P913_MIN_CONDITIONS,
    groups,
    intraGroup: groups.find((g) => g.ratings >= INTRA_MIN_RATINGS && g.levels >= INTRA_MIN_LEVELS) ?? null,
  };
}

const num = (v: number) => String(Math.round(v * 100) / 100);

/** The hint in plain words, one sentence per rule. */
export function planningText(h: PlanningHint): string[] {
  const intra = h.intraGroup
    ? `The intra-rater rule can judge each rater: the design varies ${h.intraGroup.label.toLowerCase()} alone over ${String(h.intraGroup.ratings)} scenarios with ${String(h.intraGroup.levels)} levels (it needs a one-factor group of ≥ ${String(INTRA_MIN_RATINGS)} ratings over ≥ ${String(INTRA_MIN_LEVELS)} levels per session).`
    : `The intra-rater rule cannot judge any rater of this design: it needs one factor varied alone (the others at baseline) over ≥ ${String(INTRA_MIN_RATINGS)} scenarios with ≥ ${String(INTRA_MIN_LEVELS)} levels per session${
        h.groups.length ? `; too small here: ${h.groups.map((g) => `${g.label.toLowerCase()} alone (${String(g.ratings)} scenarios, ${String(g.levels)} levels)`).join(', ')}` : ', and no factor is varied alone over 3 or more scenarios here'
      }.`;
  return [
    `A 95 % MOS interval of ±${String(HALF_WIDTH)} per scenario and game needs ${String(h.ratersForInterval)} raters per game (each rates every scenario once; SD assumed ${num(h.sd)}, a quarter of the scale's range: the SOS hypothesis at mid-scale with a = ${String(PRIOR_SOS_A)}).`,
    `P.913 screening needs ≥ ${String(h.ratersForP913)} raters per game${h.enoughConditions ? '' : ` and ≥ ${String(P913_MIN_CONDITIONS)} scenarios (this design has fewer)`}; with fewer it is “not assessable”.`,
    intra,
  ];
}
