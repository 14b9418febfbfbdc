/**
 * The column-mapping table: one row per column of the files (a column has one role in every
 * file), what its cells show (type, distinct values, missing cells) and its role, with the
 * role's own settings — a rating's item key, scale and acceptance rule; a factor's registry
 * factor, direction and unit (docs/importing-data.md, "Roles"). Every control is labelled
 * "<what> of <column>" (e.g. "Role of QoE") for screen readers and browser tests.
 */
import type { FactorInfo } from '../../api';
import { DIRECTIONS, ROLES, shortFactor, UNITS } from './mapping';
import type { ColumnRow, FieldDraft, Mapping } from './mapping';

type Change = (name: string, changes: Partial<FieldDraft>) => void;

/** The role select's choices in words (the value is the descriptor's role; `''`: not declared). */
const ROLE_TEXT: Record<string, string> = { pace: 'pace class', scenario: 'scenario code', factor: 'network factor', '': 'not declared' };

/** What a role does with the column, under its select (docs/importing-data.md, "Roles"). */
const ROLE_NOTE: Record<string, string> = {
  session: 'Derived per rater and game when no column has this role.',
  scenario: 'Generated from the factor values when no column has this role.',
  questionnaire: 'A per-rater answer, analysed as a factor; gaps allowed.',
  covariate: 'A per-rating measurement: kept, never a factor.',
  training: 'A rating marked 1 is left out of every analysis.',
  ignore: 'Not read and not analysed.',
  '': 'Not analysed; named in the warning of undeclared columns.',
};

/** Options of a select, with the current value kept when it is not one of them. */
function Options({ values, current, text }: { values: readonly string[]; current: string; text?: (value: string) => string }) {
  const all = values.includes(current) ? values : [...values, current];
  return all.map((value) => (
    <option key={value} value={value}>
      {text ? text(value) : value}
    </option>
  ));
}

function RatingSettings({ column, draft, onChange }: { column: string; draft: FieldDraft; onChange: Change }) {
  const input = (key: 'item' | 'scaleMin' | 'scaleMax' | 'acceptableFrom', label: string, numeric: boolean) => (
    <label className="mapping__setting">
      {label}
      <input
        aria-label={`${label} of ${column}`}
        className={numeric ? 'input--num' : undefined}
        inputMode={numeric ? 'decimal' : undefined}
        value={draft[key]}
        placeholder={key === 'item' ? column.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '') : undefined}
        onChange={(event) => {
          onChange(column, { [key]: event.target.value });
        }}
      />
    </label>
  );
  return (
    <>
      {input('item', 'Item key', false)}
      {input('scaleMin', 'Scale minimum', true)}
      {input('scaleMax', 'Scale maximum', true)}
      {input('acceptableFrom', 'Acceptable from', true)}
    </>
  );
}

function FactorSettings({
  column,
  draft,
  factors,
  onChange,
}: {
  column: string;
  draft: FieldDraft;
  factors: FactorInfo[];
  onChange: Change;
}) {
  const factor = factors.find((f) => f.key === draft.factor || shortFactor(f.key) === draft.factor);
  const units = factor ? (UNITS[factor.unit] ?? []) : [];
  const registryUnit = factor?.unit ? `registry's (${factor.unit})` : "registry's";
  return (
    <>
      <label className="mapping__setting">
        Factor
        <select
          aria-label={`Factor of ${column}`}
          value={draft.factor}
          onChange={(event) => {
            onChange(column, { factor: event.target.value, unit: '' });
          }}
        >
          <Options
            values={['', ...factors.map((f) => shortFactor(f.key))]}
            current={draft.factor}
            text={(value) => (value === '' ? '— choose —' : value)}
          />
        </select>
      </label>
      <label className="mapping__setting">
        Direction
        <select
          aria-label={`Direction of ${column}`}
          value={draft.direction}
          onChange={(event) => {
            onChange(column, { direction: event.target.value });
          }}
        >
          <Options values={['', ...DIRECTIONS]} current={draft.direction} text={(value) => (value === '' ? '— choose —' : value)} />
        </select>
      </label>
      {factor?.kind !== 'nominal' && (
        <label className="mapping__setting">
          Unit
          <select
            aria-label={`Unit of ${column}`}
            value={draft.unit}
            onChange={(event) => {
              onChange(column, { unit: event.target.value });
            }}
          >
            <Options values={['', ...units]} current={draft.unit} text={(value) => (value === '' ? registryUnit : value)} />
          </select>
        </label>
      )}
    </>
  );
}

/** Where a column occurs: every file, some (named), or none (a declared field the files lack). */
function filesText(row: ColumnRow, total: number): string {
  if (row.files.length === 0) return 'in no file';
  if (row.files.length === total) return total === 1 ? 'yes' : `all ${total}`;
  return row.files.join(', ');
}

function ColumnRowView({
  row,
  draft,
  total,
  again,
  factors,
  onChange,
}: {
  row: ColumnRow;
  draft: FieldDraft;
  total: number;
  /** The roles later fields of the descriptor give this column again (the import refuses them). */
  again: string[];
  factors: FactorInfo[];
  onChange: Change;
}) {
  const note = ROLE_NOTE[draft.role];
  return (
    <tr data-testid="mapping-column" data-column={row.name} data-role={draft.role}>
      <th scope="row">
        <code>{row.name}</code>
      </th>
      <td>{filesText(row, total)}</td>
      <td>{row.type}</td>
      <td className="num">{row.distinct ?? '—'}</td>
      <td className="num">{row.missing ?? '—'}</td>
      <td className="mapping__role-cell">
        <select
          className="mapping__role"
          aria-label={`Role of ${row.name}`}
          value={draft.role}
          onChange={(event) => {
            onChange(row.name, { role: event.target.value });
          }}
        >
          <Options values={[...ROLES, '']} current={draft.role} text={(value) => ROLE_TEXT[value] ?? ((ROLES as readonly string[]).includes(value) ? value : `${value} (unknown role)`)} />
        </select>
        {note && <p className="field-hint">{note}</p>}
        {row.why && <p className="field-hint mapping__why">Why: {row.why}</p>}
        {again.length > 0 && (
          <p className="field-error" data-testid="mapping-repeated">
            The descriptor declares this column again as {again.join(', ')}: a column has one role, so the import refuses it.
          </p>
        )}
      </td>
      <td>
        <div className="mapping__settings">
          {draft.role === 'rating' && <RatingSettings column={row.name} draft={draft} onChange={onChange} />}
          {draft.role === 'factor' && <FactorSettings column={row.name} draft={draft} factors={factors} onChange={onChange} />}
        </div>
      </td>
    </tr>
  );
}

export function ColumnTable({ mapping, factors, onChange }: { mapping: Mapping; factors: FactorInfo[]; onChange: Change }) {
  const total = mapping.resources.length;
  return (
    <div className="table-wrap">
      <table className="data-table edit-table mapping" aria-label="Column mapping" data-testid="column-mapping">
        <caption>
          Every column of the files and its role. A column left “not declared” or “ignore” is not analysed; only the
          network factors, the questionnaire answers and the files’ context explain the ratings.
        </caption>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">In files</th>
            <th scope="col">Type</th>
            <th scope="col" className="num">
              Distinct
            </th>
            <th scope="col" className="num">
              Missing
            </th>
            <th scope="col">Role</th>
            <th scope="col">Settings</th>
          </tr>
        </thead>
        <tbody>
          {mapping.columns.map((row) => {
            const draft = mapping.fields[row.name];
            const again = mapping.repeated.filter((field) => field.name === row.name).map((field) => String(field.role));
            return draft ? <ColumnRowView key={row.name} row={row} draft={draft} total={total} again={again} factors={factors} onChange={onChange} /> : null;
          })}
        </tbody>
      </table>
    </div>
  );
}
