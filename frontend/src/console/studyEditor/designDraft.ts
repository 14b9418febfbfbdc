/**
 * The design generator's form as data, and its validation into the body of
 * `POST /api/v1/studies/{id}/design/`. A grid crosses every level of every factor (the
 * product of the level counts); "one factor at a time" varies one factor from the baseline
 * (every factor at its first level). Levels are checked against the registry's limits here,
 * the scenario count and its maximum by the server.
 */
import type { DesignDirection, DesignKind, DesignRequest, DirectionKey, FactorInfo } from '../../api';
import { DIRECTION_KEYS, draftOf, profileOf } from './factorForm';
import type { DirectionDraft } from './factorForm';

export interface FactorRow {
  /** Stable React key of the row. */
  id: number;
  key: string;
  direction: DesignDirection;
  levels: string;
}

export interface DesignDraft {
  kind: DesignKind;
  rows: FactorRow[];
  base: Record<DirectionKey, DirectionDraft>;
}

/** Factors a design can vary: every factor of the registry (a nominal one by its choices). */
export const designFactors = (factors: readonly FactorInfo[]): FactorInfo[] => [...factors];

export function emptyDesign(factors: readonly FactorInfo[]): DesignDraft {
  const first = designFactors(factors)[0]?.key ?? '';
  return {
    kind: 'grid',
    rows: [{ id: 1, key: first, direction: 'downstream', levels: '' }],
    base: { downstream: draftOf(factors), upstream: draftOf(factors) },
  };
}

const limitText = (value: number, unit: string) => (unit ? `${value} ${unit}` : String(value));

/**
 * The levels of a comma-separated text (numbers; a nominal factor's choices by name), or
 * why it is not one.
 */
export function parseLevels(text: string, f: FactorInfo): { levels: (number | string)[] } | { error: string } {
  const parts = text.split(',').map((p) => p.trim());
  const example = f.kind === 'nominal' ? f.choices.slice(0, 2).join(', ') : '0, 100, 200';
  if (parts.every((p) => p === '')) return { error: `Give the levels of ${f.label.toLowerCase()}, separated by commas (e.g. ${example})` };
  const levels: (number | string)[] = [];
  for (const part of parts) {
    if (part === '') return { error: 'A level is missing between two commas' };
    if (f.kind === 'nominal') {
      if (!f.choices.includes(part)) return { error: `“${part}” is not one of ${f.choices.join(', ')}` };
      if (levels.includes(part)) return { error: `Level ${part} is given twice` };
      levels.push(part);
      continue;
    }
    const n = Number(part);
    if (!Number.isFinite(n)) return { error: `“${part}” is not a number` };
    if (f.minimum !== null && n < f.minimum) return { error: `${f.label} must be ≥ ${limitText(f.minimum, f.unit)} (level ${part})` };
    if (f.maximum !== null && n > f.maximum) return { error: `${f.label} must be ≤ ${limitText(f.maximum, f.unit)} (level ${part})` };
    if (levels.includes(n)) return { error: `Level ${part} is given twice` };
    levels.push(n);
  }
  return { levels };
}

/**
 * The request of a draft (with `dry_run`), or the errors keyed `rows.<i>.key`,
 * `rows.<i>.levels`, `<direction>.<factor key>` (the base profile) and `""`.
 */
export function designRequest(
  draft: DesignDraft,
  factors: readonly FactorInfo[],
  dryRun: boolean,
): { request: DesignRequest | null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const byKey = new Map(factors.map((f) => [f.key, f]));
  const out: DesignRequest['factors'] = [];
  const taken = new Set<string>();
  if (draft.rows.length === 0) errors[''] = 'Add at least one factor.';
  draft.rows.forEach((row, i) => {
    const f = byKey.get(row.key);
    if (!f) {
      errors[`rows.${i}.key`] = 'Choose a factor';
      return;
    }
    const directions: DirectionKey[] = row.direction === 'both' ? [...DIRECTION_KEYS] : [row.direction];
    if (directions.some((d) => taken.has(`${d}.${f.key}`))) {
      errors[`rows.${i}.key`] = `${f.label} is already varied in this direction`;
    }
    for (const d of directions) taken.add(`${d}.${f.key}`);
    const parsed = parseLevels(row.levels, f);
    if ('error' in parsed) errors[`rows.${i}.levels`] = parsed.error;
    // the registry's keys are the schema's FactorKeyEnum (the server checks the key too)
    else out.push({ key: f.key as DesignRequest['factors'][number]['key'], direction: row.direction, levels: parsed.levels });
  });
  const base: DesignRequest['base'] = { downstream: {}, upstream: {} };
  for (const d of DIRECTION_KEYS) {
    const { profile, errors: problems } = profileOf(factors, draft.base[d]);
    for (const [key, message] of Object.entries(problems)) errors[`${d}.${key}`] = message;
    if (profile) base[d] = profile;
  }
  if (Object.keys(errors).length > 0) return { request: null, errors };
  return { request: { kind: draft.kind, factors: out, base, dry_run: dryRun }, errors };
}
