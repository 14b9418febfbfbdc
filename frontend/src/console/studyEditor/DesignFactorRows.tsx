/**
 * The factors a design varies, one group per factor ("Factor 1", "Factor 2"…): which
 * factor, which direction (downstream, upstream, or both with the same level) and its
 * levels; "Add factor" and "Remove factor <n>". An empty Levels field is not marked before the
 * researcher has typed in it or left it (issue 35: red before any input reads as a mistake).
 */
import { useState } from 'react';

import type { DesignDirection, FactorInfo } from '../../api';
import { Field } from '../ui';
import { designFactors } from './designDraft';
import type { FactorRow } from './designDraft';

const DIRECTION_OPTIONS: { value: DesignDirection; label: string }[] = [
  { value: 'downstream', label: 'downstream (server→client)' },
  { value: 'upstream', label: 'upstream (client→server)' },
  { value: 'both', label: 'both directions (same level)' },
];

interface Props {
  factors: readonly FactorInfo[];
  rows: FactorRow[];
  onChange: (rows: FactorRow[]) => void;
  errors: Record<string, string>;
}

export function DesignFactorRows({ factors, rows, onChange, errors }: Props) {
  const choices = designFactors(factors);
  // Rows whose Levels field the researcher has left: from then on an empty one is an error.
  const [visited, setVisited] = useState<ReadonlySet<number>>(new Set());
  const levelsError = (row: FactorRow, i: number) => (row.levels.trim() !== '' || visited.has(row.id) ? errors[`rows.${i}.levels`] : undefined);
  const update = (i: number, patch: Partial<FactorRow>) => {
    onChange(rows.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  };
  const add = () => {
    const used = new Set(rows.map((r) => r.key));
    const next = choices.find((f) => !used.has(f.key)) ?? choices[0];
    onChange([...rows, { id: Math.max(0, ...rows.map((r) => r.id)) + 1, key: next?.key ?? '', direction: 'downstream', levels: '' }]);
  };
  return (
    <div className="design-factors">
      {rows.map((row, i) => {
        const factor = factors.find((f) => f.key === row.key);
        const unit = factor?.unit ? ` (${factor.unit})` : '';
        return (
          <fieldset key={row.id} className="form--inline design-factor">
            <legend>Factor {i + 1}</legend>
            <Field label="Factor" error={errors[`rows.${i}.key`]}>
              {(props) => (
                <select {...props} value={row.key} onChange={(e) => { update(i, { key: e.target.value }); }}>
                  {choices.map((f) => (
                    <option key={f.key} value={f.key}>
                      {f.label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Direction">
              {(props) => (
                <select
                  {...props}
                  value={row.direction}
                  onChange={(e) => { update(i, { direction: e.target.value as DesignDirection }); }}
                >
                  {DIRECTION_OPTIONS.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label={`Levels${unit}`} error={levelsError(row, i)} hint={factor?.kind === 'nominal' ? `Comma-separated among ${factor.choices.join(', ')}; the first is the baseline's.` : "Comma-separated; the first is the baseline's."}>
              {(props) => (
                <input {...props} value={row.levels} placeholder={factor?.kind === 'nominal' ? factor.choices.slice(0, 2).join(', ') : '0, 100, 200'} onChange={(e) => { update(i, { levels: e.target.value }); }} onBlur={() => { setVisited(new Set(visited).add(row.id)); }} />
              )}
            </Field>
            {rows.length > 1 && (
              <button
                type="button"
                className="button button--quiet button--small"
                onClick={() => { onChange(rows.filter((_, j) => j !== i)); }}
              >
                Remove factor {i + 1}
              </button>
            )}
          </fieldset>
        );
      })}
      <button type="button" className="button" onClick={add}>
        Add factor
      </button>
    </div>
  );
}
