/**
 * The column mapping of a dataset import and the descriptor it writes (docs/importing-data.md).
 *
 * The page edits a {@link Mapping}: one row per column name over all files (the descriptor has
 * one schema for every file, so a column has one role wherever it occurs), the resources with
 * their namespace and context, the missing-value texts and the games' paces. It starts from a
 * descriptor (the draft `describe` wrote, or the researcher's own file) and
 * {@link writeDescriptor} turns it back into one. What the page does not edit — a field's
 * constraints, title or boolean texts, a scale's kind and labels, the descriptor's name and
 * licences — is kept as it came (`base`), so a given descriptor goes through unchanged except
 * where the researcher changed it.
 */
import type { ColumnInfo, DescribeResult } from './api';

/** The roles of `qoe_analysis.dataset.fields.ROLES`, in its order. */
export const ROLES = [
  'rater',
  'session',
  'game',
  'pace',
  'scenario',
  'rating',
  'factor',
  'questionnaire',
  'covariate',
  'training',
  'ignore',
] as const;
export type Role = (typeof ROLES)[number];
/** `''`: the column is not declared (not analysed, and named in the `undeclared_columns` warning). */
export type Choice = Role | '';

/** `qoe_analysis.dataset.units.DIRECTIONS`. */
export const DIRECTIONS = ['downstream', 'upstream', 'both'] as const;
/** The registry unit of a factor → the units a descriptor may give (`units.CONVERSIONS`, registry unit first). */
export const UNITS: Readonly<Record<string, readonly string[]>> = {
  ms: ['ms', 's', 'us'],
  '%': ['%', 'fraction'],
  'kbit/s': ['kbit/s', 'bit/s', 'Mbit/s'],
};
export const PACES = ['fast', 'medium', 'slow'] as const;
/** The roles whose column a file may lack (listed in the resource's `missing_fields`). */
const OPTIONAL_ROLES: readonly string[] = ['questionnaire', 'covariate', 'ignore'];
/** The keys a role adds to a field (`fields._ROLE_KEYS`): dropped when the role changes. */
const ROLE_KEYS = ['item', 'scale', 'acceptable_from', 'factor', 'direction', 'unit'];

type Json = Record<string, unknown>;

/** A column over all files: where it occurs and what its cells show. */
export interface ColumnRow {
  name: string;
  files: string[];
  type: string;
  distinct: number | null;
  missing: number | null;
  why: string;
}

/** The editable part of a field; number inputs stay text until written. */
export interface FieldDraft {
  /** A {@link Choice}; a given descriptor's unknown role stays as it is (the import names it). */
  role: string;
  item: string;
  scaleMin: string;
  scaleMax: string;
  acceptableFrom: string;
  factor: string;
  direction: string;
  unit: string;
  /** The field as the descriptor gave it (`{}` for an undeclared column). */
  base: Json;
}

export interface ResourceDraft {
  path: string;
  namespace: string;
  /** Context name → value (every resource gives the same names). */
  context: Record<string, string>;
  base: Json;
}

export interface GamePace {
  game: string;
  pace: string;
}

export interface Mapping {
  columns: ColumnRow[];
  fields: Record<string, FieldDraft>;
  resources: ResourceDraft[];
  contextNames: string[];
  /** The missing-value texts besides the empty cell, comma-separated. */
  missingValues: string;
  gamePaces: GamePace[];
  /**
   * The given descriptor's fields that name a column an earlier field declares: a column has
   * one role, so they are written back as they came and the import names the clash
   * (`one field per column`) instead of the page keeping one role silently.
   */
  repeated: Json[];
  /** Whether the files were described (else the columns are unknown: a YAML descriptor, say). */
  described: boolean;
  base: Json;
  schemaBase: Json;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
/** `object` without `keys` (what the page edits is written anew; the rest is kept). */
const omit = (object: Json, keys: readonly string[]): Json => Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));

/** Whether an uploaded file is a resource's: its name is the resource's `path` or that path's last part (as the import matches them). */
export const isFileOf = (file: string, path: string): boolean => file === path || file === path.split('/').pop();

/** `"4"` → 4, `""` → undefined, anything else as typed (the import names it as a problem). */
export function numberOrText(value: string): number | string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : trimmed;
}

/** The short registry name of a factor key: `delay_ms` → `delay` (`units._short`). */
export const shortFactor = (key: string): string => key.replace(/_(ms|pct|kbit)$/, '');

function fieldDraft(base: Json, observed: Json): FieldDraft {
  const scale = isObject(base.scale) ? base.scale : {};
  return {
    role: text(base.role),
    item: text(base.item),
    scaleMin: text(scale.min ?? observed.min),
    scaleMax: text(scale.max ?? observed.max),
    acceptableFrom: text(base.acceptable_from),
    factor: text(base.factor),
    direction: text(base.direction),
    unit: text(base.unit),
    base,
  };
}

/** One row per column name, in the order the files have them; counts over all files. */
function columnRows(columns: ColumnInfo[], observed: Map<string, Json>): ColumnRow[] {
  const rows = new Map<string, ColumnRow>();
  for (const column of columns) {
    const row = rows.get(column.name);
    if (row === undefined) {
      rows.set(column.name, { ...column, files: [column.file] });
      continue;
    }
    row.files.push(column.file);
    row.missing = row.missing === null ? null : row.missing + column.missing;
    row.distinct = row.distinct === null ? null : Math.max(row.distinct, column.distinct);
  }
  // describe's draft counts over all files at once: its numbers are the exact ones.
  for (const row of rows.values()) {
    const seen = observed.get(row.name) ?? {};
    if (typeof seen.distinct === 'number') row.distinct = seen.distinct;
    if (typeof seen.missing === 'number') row.missing = seen.missing;
  }
  return [...rows.values()];
}

function resourceDraft(base: Json): ResourceDraft {
  const context = isObject(base.context) ? base.context : {};
  return {
    path: text(base.path),
    namespace: text(base.namespace),
    context: Object.fromEntries(Object.entries(context).map(([key, value]) => [key, text(value)])),
    base,
  };
}

/**
 * The mapping of the described files: the fields of `given` (the researcher's descriptor)
 * when there is one, else of describe's draft. A column the descriptor does not declare is
 * `''`; a field naming no column of the files keeps a row of its own (the import says so).
 */
export function buildMapping(described: DescribeResult | null, given: Json | null): Mapping {
  const draft = described?.descriptor ?? {};
  const source = given ?? draft;
  const schema = isObject(source.schema) ? source.schema : {};
  const draftSchema = isObject(draft.schema) ? draft.schema : {};
  const observed = new Map(
    objects(draftSchema.fields).map((field) => [text(field.name), isObject(field.observed) ? field.observed : {}]),
  );
  const columns = columnRows(described?.columns ?? [], observed);
  const declared = objects(schema.fields);
  const known = new Set(columns.map((column) => column.name));
  for (const field of declared) {
    const name = text(field.name);
    if (!known.has(name)) columns.push({ name, files: [], type: text(field.type), distinct: null, missing: null, why: '' });
    known.add(name);
  }
  // The first field of a column is its row, as the loader keeps the first role it reads.
  const byName = new Map<string, Json>();
  const repeated: Json[] = [];
  for (const field of declared) {
    if (byName.has(text(field.name))) repeated.push(field);
    else byName.set(text(field.name), field);
  }
  // describe's note explains its draft's role: a given descriptor's rows show their own, if any.
  if (given !== null) for (const column of columns) column.why = text(byName.get(column.name)?.why);
  const fields = Object.fromEntries(
    columns.map((column) => [
      column.name,
      fieldDraft(byName.get(column.name) ?? { name: column.name, type: column.type }, observed.get(column.name) ?? {}),
    ]),
  );
  const resources = objects(source.resources).map(resourceDraft);
  const paces = isObject(source.game_paces) ? source.game_paces : {};
  const missing = Array.isArray(schema.missingValues) ? schema.missingValues.map(text).filter(Boolean) : [];
  return {
    columns,
    fields,
    resources,
    contextNames: [...new Set(resources.flatMap((resource) => Object.keys(resource.context)))],
    missingValues: missing.join(', '),
    gamePaces: Object.entries(paces).map(([game, pace]) => ({ game, pace: text(pace) })),
    repeated,
    described: described !== null,
    base: omit(source, ['resources', 'schema', 'game_paces']),
    schemaBase: omit(schema, ['fields', 'missingValues']),
  };
}

/** The field a draft writes, or `null` for an undeclared column. */
export function writeField(name: string, draft: FieldDraft): Json | null {
  if (draft.role === '') return null;
  const type = draft.base.type;
  const kept = omit(draft.base, ['name', 'type', 'role', ...ROLE_KEYS]);
  // describe's note explains the role it chose: stale once the researcher chose another.
  if (draft.role !== draft.base.role) delete kept.why;
  const out: Json = { name, ...(type === undefined ? {} : { type }), role: draft.role };
  if (draft.role === 'rating') {
    if (draft.item.trim()) out.item = draft.item.trim();
    const scale: Json = { ...(isObject(draft.base.scale) ? draft.base.scale : {}) };
    scale.min = numberOrText(draft.scaleMin);
    scale.max = numberOrText(draft.scaleMax);
    out.scale = Object.fromEntries(Object.entries(scale).filter(([, value]) => value !== undefined));
    const cut = numberOrText(draft.acceptableFrom);
    if (cut !== undefined) out.acceptable_from = cut;
  }
  if (draft.role === 'factor') {
    if (draft.factor) out.factor = draft.factor;
    if (draft.direction) out.direction = draft.direction;
    if (draft.unit) out.unit = draft.unit;
  }
  return { ...out, ...kept };
}

/**
 * The declared optional columns (questionnaire, covariate, ignore) a described file lacks. A
 * column that no file has is listed only where the descriptor listed it: otherwise a
 * misspelt or absent column would be excused in every file, and the import would not refuse
 * a descriptor that names a missing column (issue 32, acceptance).
 */
export function missingFieldsOf(mapping: Mapping, resource: ResourceDraft): string[] | undefined {
  const inFile = (column: ColumnRow) => column.files.some((file) => isFileOf(file, resource.path));
  const described = mapping.columns.some(inFile);
  const given = Array.isArray(resource.base.missing_fields) ? resource.base.missing_fields.map(text) : undefined;
  if (!described) return given;
  return mapping.columns
    .filter((column) => !inFile(column) && OPTIONAL_ROLES.includes(mapping.fields[column.name]?.role ?? ''))
    .filter((column) => column.files.length > 0 || (given ?? []).includes(column.name))
    .map((column) => column.name);
}

function writeResource(mapping: Mapping, resource: ResourceDraft): Json {
  const rest = omit(resource.base, ['path', 'namespace', 'context', 'missing_fields']);
  const original = isObject(resource.base.context) ? resource.base.context : {};
  const out: Json = { path: resource.path };
  if (resource.namespace.trim()) out.namespace = resource.namespace.trim();
  const context = mapping.contextNames
    .filter((name) => (resource.context[name] ?? '').trim() !== '')
    // A value left as it was keeps its JSON type (a number stays a number).
    .map((name) => {
      const value = (resource.context[name] ?? '').trim();
      return [name, text(original[name]) === value ? original[name] : value] as const;
    });
  if (context.length > 0) out.context = Object.fromEntries(context);
  const missing = missingFieldsOf(mapping, resource);
  if (missing !== undefined && missing.length > 0) out.missing_fields = missing;
  return { ...out, ...rest };
}

/** The descriptor the mapping writes: what "Download descriptor" saves and "Import" sends. */
export function writeDescriptor(mapping: Mapping): Json {
  const fields = mapping.columns
    .map((column) => {
      const draft = mapping.fields[column.name];
      return draft === undefined ? null : writeField(column.name, draft);
    })
    .filter((field): field is Json => field !== null)
    .concat(mapping.repeated);
  const tokens = mapping.missingValues
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);
  const paces = mapping.gamePaces.filter((entry) => entry.game.trim() !== '');
  return {
    ...mapping.base,
    resources: mapping.resources.map((resource) => writeResource(mapping, resource)),
    ...(paces.length > 0 ? { game_paces: Object.fromEntries(paces.map((entry) => [entry.game.trim(), entry.pace])) } : {}),
    schema: { ...mapping.schemaBase, missingValues: ['', ...new Set(tokens)], fields },
  };
}
