/** The study's network scenarios: per-direction delay, jitter and loss, and the Table 4.1 preset. */
import { useState } from 'react';

import { fieldErrors, scenarioPath, scenariosPath, sendJSON } from '../../api';
import type { Impairment, Scenario, StudyDetail } from '../../api';
import { useAction } from '../hooks';
import { TABLE_4_1 } from '../presets';
import { RowActions, toNumber, useEditRow } from './editRow';

type Direction = 'upstream' | 'downstream';
const DIRECTIONS: { key: Direction; short: string; label: string }[] = [
  { key: 'upstream', short: 'up', label: 'Upstream (client→server)' },
  { key: 'downstream', short: 'down', label: 'Downstream (server→client)' },
];
const METRICS: { key: keyof Impairment; label: string; unit: string }[] = [
  { key: 'delay_ms', label: 'delay', unit: 'ms' },
  { key: 'jitter_ms', label: 'jitter', unit: 'ms' },
  { key: 'loss_pct', label: 'loss', unit: '%' },
];

interface ScenarioDraft {
  code: string;
  label: string;
  is_baseline: boolean;
  upstream: Record<keyof Impairment, string>;
  downstream: Record<keyof Impairment, string>;
}

const toDraftDirection = (i: Impairment | undefined): Record<keyof Impairment, string> => ({
  delay_ms: String(i?.delay_ms ?? 0),
  jitter_ms: String(i?.jitter_ms ?? 0),
  loss_pct: String(i?.loss_pct ?? 0),
});

const fromDraftDirection = (d: Record<keyof Impairment, string>) => ({
  delay_ms: toNumber(d.delay_ms),
  jitter_ms: toNumber(d.jitter_ms),
  loss_pct: toNumber(d.loss_pct),
});

function sameImpairment(a: Impairment, b: Impairment): boolean {
  return a.delay_ms === b.delay_ms && a.jitter_ms === b.jitter_ms && a.loss_pct === b.loss_pct;
}

export function ScenariosEditor({ study, onChanged }: { study: StudyDetail; onChanged: () => void }) {
  const preset = useAction();
  const [presetReport, setPresetReport] = useState<string | null>(null);

  const applyPreset = async () => {
    const existing = new Map(study.scenarios.map((s) => [s.code, s]));
    const changes = TABLE_4_1.filter((p) => {
      const s = existing.get(p.code);
      if (!s) return true;
      return (
        s.label !== p.label ||
        s.is_baseline !== p.is_baseline ||
        !sameImpairment(s.upstream, p.upstream) ||
        !sameImpairment(s.downstream, p.downstream)
      );
    });
    if (changes.length === 0) {
      setPresetReport('The study already has the ten scenarios of table 4.1.');
      return;
    }
    if (
      study.scenarios.length > 0 &&
      !window.confirm(`Create or update ${changes.length} scenario(s) (${changes.map((c) => c.code).join(', ')}) to match table 4.1?`)
    ) {
      return;
    }
    const problems: string[] = [];
    await preset.run(async () => {
      for (const p of changes) {
        const s = existing.get(p.code);
        try {
          if (s) await sendJSON('PATCH', scenarioPath(s.id), p);
          else await sendJSON('POST', scenariosPath(), { ...p, study: study.id });
        } catch (error) {
          const flat = Object.entries(fieldErrors(error)).map(([k, v]) => (k ? `${k}: ${v}` : v));
          problems.push(`${p.code}: ${flat.join('; ') || String(error)}`);
        }
      }
    });
    setPresetReport(
      problems.length === 0
        ? `Table 4.1 applied: ${changes.length} scenario(s) created or updated.`
        : `Some scenarios could not be written — ${problems.join(' · ')}`,
    );
    onChanged();
  };

  return (
    <section aria-labelledby="scenarios-heading">
      <h3 id="scenarios-heading">Network scenarios</h3>
      <p className="muted">
        Delay is one-way per direction; loss is per direction. Upstream = client→server (the player&apos;s inputs),
        downstream = server→client (the game video).
      </p>
      <p>
        <button type="button" className="button" disabled={preset.busy} onClick={() => void applyPreset()}>
          Use the table 4.1 preset (10 scenarios)
        </button>{' '}
        {presetReport && <span role="status">{presetReport}</span>}
      </p>
      <div className="table-wrap">
        <table className="data-table edit-table" aria-label="Scenarios">
          <thead>
            <tr>
              <th scope="col" rowSpan={2}>Code</th>
              <th scope="col" rowSpan={2}>Label</th>
              <th scope="col" rowSpan={2}>Baseline</th>
              {DIRECTIONS.map((d) => (
                <th key={d.key} scope="colgroup" colSpan={3} className="group-head">
                  {d.label}
                </th>
              ))}
              <th scope="col" rowSpan={2}>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
            <tr>
              {DIRECTIONS.map((d) =>
                METRICS.map((m) => (
                  <th key={`${d.key}-${m.key}`} scope="col" className="num">
                    {m.label} ({m.unit})
                  </th>
                )),
              )}
            </tr>
          </thead>
          <tbody>
            {study.scenarios.map((s) => (
              <ScenarioRow key={JSON.stringify(s)} studyId={study.id} scenario={s} onChanged={onChanged} />
            ))}
            <ScenarioRow key={`new-${study.scenarios.length}`} studyId={study.id} scenario={null} onChanged={onChanged} />
          </tbody>
        </table>
      </div>
    </section>
  );
}

function ScenarioRow({ studyId, scenario, onChanged }: { studyId: number; scenario: Scenario | null; onChanged: () => void }) {
  const initial: ScenarioDraft = {
    code: scenario?.code ?? '',
    label: scenario?.label ?? '',
    is_baseline: scenario?.is_baseline ?? false,
    upstream: toDraftDirection(scenario?.upstream),
    downstream: toDraftDirection(scenario?.downstream),
  };
  const [draft, setDraft] = useState<ScenarioDraft>(initial);
  const row = useEditRow(onChanged);
  const errors = row.errors;
  const name = scenario ? scenario.code : 'new scenario';
  const dirty = JSON.stringify(draft) !== JSON.stringify(initial);

  const save = async () => {
    const body = {
      code: draft.code.trim(),
      label: draft.label,
      is_baseline: draft.is_baseline,
      upstream: fromDraftDirection(draft.upstream),
      downstream: fromDraftDirection(draft.downstream),
    };
    await row.save(() =>
      scenario ? sendJSON<Scenario>('PATCH', scenarioPath(scenario.id), body) : sendJSON<Scenario>('POST', scenariosPath(), { ...body, study: studyId }),
    );
  };
  const rowError = [errors[''], errors.profile, errors.study].filter(Boolean).join(' ');

  return (
    <tr className={[scenario ? '' : 'is-new', draft.is_baseline ? 'is-baseline' : ''].join(' ').trim() || undefined}>
      <td>
        <input
          className="input--code"
          aria-label={`Code of ${name}`}
          aria-invalid={Boolean(errors.code)}
          value={draft.code}
          placeholder={scenario ? undefined : 'new'}
          onChange={(e) => { setDraft({ ...draft, code: e.target.value.toUpperCase() }); }}
        />
        {errors.code && <p className="field-error">{errors.code}</p>}
      </td>
      <td>
        <input aria-label={`Label of ${name}`} value={draft.label} onChange={(e) => { setDraft({ ...draft, label: e.target.value }); }} />
      </td>
      <td>
        <input type="checkbox" aria-label={`${name} is the baseline`} checked={draft.is_baseline} onChange={(e) => { setDraft({ ...draft, is_baseline: e.target.checked }); }} />
        {errors.is_baseline && <p className="field-error">{errors.is_baseline}</p>}
      </td>
      {DIRECTIONS.map((d) =>
        METRICS.map((m) => {
          const error = errors[`${d.key}.${m.key}`] ?? errors[d.key];
          return (
            <td key={`${d.key}-${m.key}`} className="num">
              <input
                className="input--num"
                type="number"
                step="any"
                min={0}
                aria-label={`${name} ${d.short}stream ${m.label} (${m.unit})`}
                aria-invalid={Boolean(error)}
                value={draft[d.key][m.key]}
                onChange={(e) => { setDraft({ ...draft, [d.key]: { ...draft[d.key], [m.key]: e.target.value } }); }}
              />
              {error && <p className="field-error">{error}</p>}
            </td>
          );
        }),
      )}
      <RowActions
        isNew={!scenario}
        busy={row.busy}
        dirty={dirty}
        onSave={save}
        removeLabel="Remove"
        onRemove={
          scenario && !scenario.is_baseline
            ? () => row.remove(scenarioPath(scenario.id), `Remove scenario ${scenario.code}? Its ratings stay (as an older study version).`)
            : undefined
        }
        error={rowError}
      />
    </tr>
  );
}
