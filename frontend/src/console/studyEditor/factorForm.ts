/**
 * The registry-driven impairment form, as pure functions: which factors a direction shows
 * where, a direction's draft (text per factor) from and to the API's profile, and the
 * validation against the registry's limits that runs before any request.
 *
 * The registry (`GET /api/v1/factors/`, `netem_profile.factors`) names the Gilbert–Elliott
 * parts `ge_<part>`; in the profile they are the parts of the `gilbert_elliott` object,
 * which is null when burst loss is off.
 */
import { ApiError, flattenErrors } from '../../api';
import type { DirectionKey, DirectionProfile, FactorInfo, GilbertElliott } from '../../api';

export const DIRECTION_KEYS: readonly DirectionKey[] = ['downstream', 'upstream'];
export const DIRECTION_NAMES: Record<DirectionKey, string> = { downstream: 'Downstream', upstream: 'Upstream' };

const GE_PREFIX = 'ge_';
export const isBurstFactor = (f: FactorInfo): boolean => f.key.startsWith(GE_PREFIX);

/**
 * Where a factor is shown: `main` (the factors with a policy KPI: delay, jitter, loss),
 * `burst` (the Gilbert–Elliott parts, one group) and `more` (the rest, behind a disclosure).
 */
export function groupFactors(factors: readonly FactorInfo[]) {
  return {
    main: factors.filter((f) => f.kpi !== null && !isBurstFactor(f)),
    burst: factors.filter(isBurstFactor),
    more: factors.filter((f) => f.kpi === null && !isBurstFactor(f)),
  };
}

/** A factor's field label: `Delay (ms)`, `Jitter distribution`. */
export const fieldLabel = (f: FactorInfo): string => (f.unit ? `${f.label} (${f.unit})` : f.label);

/** The text of a direction's form: one string per factor key, and whether burst loss is on. */
export interface DirectionDraft {
  values: Record<string, string>;
  burst: boolean;
}

/** A factor's value in a stored or previewed direction profile (its neutral value when unset). */
export function factorValue(profile: Partial<DirectionProfile> | undefined, f: FactorInfo): number | string {
  if (isBurstFactor(f)) {
    const ge = profile?.gilbert_elliott;
    const part = f.key.slice(GE_PREFIX.length) as keyof GilbertElliott;
    return ge ? ge[part] : f.neutral;
  }
  const value = (profile as Record<string, unknown> | undefined)?.[f.key];
  return typeof value === 'number' || typeof value === 'string' ? value : f.neutral;
}

export function draftOf(factors: readonly FactorInfo[], profile?: Partial<DirectionProfile>): DirectionDraft {
  const values: Record<string, string> = {};
  for (const f of factors) values[f.key] = String(factorValue(profile, f));
  return { values, burst: Boolean(profile?.gilbert_elliott) };
}

const formatLimit = (value: number, unit: string): string => (unit ? `${value} ${unit}` : String(value));

/** Why `text` is not a valid value of `f` (limits named), or null when it is. */
export function checkValue(f: FactorInfo, text: string): string | null {
  if (f.kind === 'nominal') {
    return f.choices.length === 0 || f.choices.includes(text) ? null : `${f.label} must be one of ${f.choices.join(', ')}`;
  }
  const trimmed = text.trim();
  if (trimmed === '') return `${f.label} needs a value (${formatLimit(Number(f.neutral), f.unit)} adds no impairment)`;
  const n = Number(trimmed);
  if (!Number.isFinite(n)) return `${f.label} must be a number`;
  if (f.minimum !== null && n < f.minimum) return `${f.label} must be ≥ ${formatLimit(f.minimum, f.unit)}`;
  if (f.maximum !== null && n > f.maximum) return `${f.label} must be ≤ ${formatLimit(f.maximum, f.unit)}`;
  return null;
}

/**
 * A direction's profile from its draft, or the errors keyed by factor key. Every field is
 * sent (a PATCH must reset a factor set earlier); the Gilbert–Elliott object only when burst
 * loss is on, else null.
 */
export function profileOf(
  factors: readonly FactorInfo[],
  draft: DirectionDraft,
): { profile: Partial<DirectionProfile> | null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const out: Record<string, unknown> = {};
  const ge: Record<string, number> = {};
  for (const f of factors) {
    if (isBurstFactor(f) && !draft.burst) continue;
    const text = draft.values[f.key] ?? String(f.neutral);
    const problem = checkValue(f, text);
    if (problem) {
      errors[f.key] = problem;
      continue;
    }
    const value = f.kind === 'nominal' ? text : Number(text.trim());
    if (isBurstFactor(f)) ge[f.key.slice(GE_PREFIX.length)] = value as number;
    else out[f.key] = value;
  }
  out.gilbert_elliott = draft.burst ? ge : null;
  return Object.keys(errors).length > 0 ? { profile: null, errors } : { profile: out, errors };
}

/** `profile.gilbert_elliott.p_pct` → `ge_p_pct`; `profile.loss_pct` → `loss_pct`. */
function factorKeyOfPath(rest: string): string {
  return rest.startsWith('gilbert_elliott.') ? `${GE_PREFIX}${rest.slice('gilbert_elliott.'.length)}` : rest;
}

/**
 * The server's 400 as errors keyed `<direction>.<factor key>` (a factor's field),
 * `<direction>.gilbert_elliott` (the burst-loss group), other field names as they are, and
 * `""` for the rest. Understands DRF's nested errors (`{downstream: {loss_pct: [...]}}`)
 * and the profile check's `"downstream.loss_pct: message"` lines; `prefix` strips an outer
 * key (`base` of a design); a design's `factors.<i>.<field>` becomes `rows.<i>.<field>`.
 */
export function serverErrors(error: unknown, prefix = ''): Record<string, string> {
  if (!(error instanceof ApiError)) {
    if (error instanceof Error) return { '': error.message };
    return error ? { '': 'unexpected error' } : {};
  }
  const out: Record<string, string> = {};
  const add = (key: string, message: string) => {
    out[key] = out[key] ? `${out[key]} ${message}` : message;
  };
  const body = error.body;
  // Lists of "<path>: message" lines (the profile check's words): the old `profile` key, and a
  // direction's errors that belong to no single field (DRF puts them under the direction).
  const record = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const outer = prefix && record[prefix] && typeof record[prefix] === 'object' ? (record[prefix] as Record<string, unknown>) : {};
  const lineKeys = new Set<string>();
  const lines: string[] = [];
  const collect = (value: unknown, key: string) => {
    if (!Array.isArray(value) || !value.every((x) => typeof x === 'string')) return;
    lines.push(...value);
    lineKeys.add(key);
  };
  collect(record.profile, 'profile');
  for (const d of DIRECTION_KEYS) {
    collect(record[d], d);
    if (prefix) collect(outer[d], `${prefix}.${d}`);
  }
  for (const line of lines) {
    const match = /^((?:upstream|downstream)(?:\.[a-z_]+)*): (.*)$/.exec(line);
    if (match?.[1] && match[2]) {
      const [direction, ...rest] = match[1].split('.');
      add(rest.length > 0 ? `${direction}.${factorKeyOfPath(rest.join('.'))}` : `${direction}`, match[2]);
    } else add('', line);
  }
  for (const [key, message] of Object.entries(flattenErrors(body))) {
    if (lineKeys.has(key)) continue;
    let path = key;
    if (prefix && (path === prefix || path.startsWith(`${prefix}.`))) path = path.slice(prefix.length + 1);
    const [head, ...rest] = path.split('.');
    // the profile check starts each message with the field's path: the field shows it, so drop it
    const text = message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message;
    if ((head === 'upstream' || head === 'downstream') && rest.length > 0) add(`${head}.${factorKeyOfPath(rest.join('.'))}`, text);
    else if (head === 'factors' && rest.length === 2) add(`rows.${rest.join('.')}`, text);
    else add(path, text);
  }
  // The design endpoint names a level in its detail: "factors[0].levels[1]: 70000 is greater…"
  const level = /^factors\[(\d+)\]\.(key|direction|levels)(?:\[\d+\])?: (.*)$/.exec(error.detail ?? '');
  if (level?.[1] && level[2] && level[3] && Object.keys(out).length <= 1) {
    delete out[''];
    add(`rows.${level[1]}.${level[2] === 'direction' ? 'key' : level[2]}`, level[3]);
  }
  if (Object.keys(out).length === 0) add('', error.detail ?? error.message);
  return out;
}

/** The errors of one direction (`downstream.loss_pct` → `loss_pct`). */
export function directionErrors(errors: Record<string, string>, direction: DirectionKey): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(errors)) {
    if (key.startsWith(`${direction}.`)) out[key.slice(direction.length + 1)] = message;
    else if (key === direction) out[''] = message;
  }
  return out;
}

/** A direction in words: the factors that differ from neutral (`100 ms delay, 10 ms jitter`), or `none`. */
export function describeDirection(factors: readonly FactorInfo[], profile: Partial<DirectionProfile> | undefined): string {
  const parts: string[] = [];
  for (const f of factors) {
    const value = factorValue(profile, f);
    if (isBurstFactor(f) && !profile?.gilbert_elliott) continue;
    if (!isBurstFactor(f) && value === f.neutral) continue;
    parts.push(f.kind === 'nominal' ? `${f.label.toLowerCase()} ${value}` : `${f.label} ${value}${f.unit ? ` ${f.unit}` : ''}`);
  }
  return parts.length > 0 ? parts.join(', ') : 'none';
}
