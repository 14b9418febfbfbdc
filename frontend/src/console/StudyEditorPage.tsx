import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { useParams } from 'react-router';

import { fieldErrors, gamePath, gamesPath, scenarioPath, scenariosPath, sendJSON, studyPath } from '../api';
import type { Game, Impairment, OrderPolicy, Pace, Question, QuestionKind, Scenario, StudyDetail, StudyLanguage } from '../api';
import { ErrorMessage, Loading } from '../components/StatusMessage';
import { useAction, usePolled } from './hooks';
import { TABLE_4_1 } from './presets';
import { ActionError, Field, StudyNav, useStudyId } from './ui';

/** `/console/studies/:id` — the study's design: settings, games, scenarios, questionnaire. */
export function StudyEditorPage() {
  const studyId = useStudyId(useParams().studyId);
  // Kept while reloading after a save, so the forms (and their "Saved.") stay in place.
  const study = usePolled<StudyDetail>(studyId === null ? null : studyPath(studyId), null);
  if (studyId === null) return <ErrorMessage title="Not a study" error={new Error('invalid study id')} />;
  const data = study.data;
  if (!data) {
    if (study.error) return <ErrorMessage title="Could not load the study" error={study.error} onRetry={study.refresh} />;
    return <Loading>Loading the study…</Loading>;
  }
  return (
    <>
      <StudyNav studyId={studyId} title={data.title} />
      <p className="muted">
        Study version {data.version}. Once a study has sessions, changing a scenario keeps the old row for its ratings and
        raises the version; games with sessions cannot change.
      </p>
      <SettingsForm study={data} onSaved={study.refresh} />
      <GamesEditor study={data} onChanged={study.refresh} />
      <ScenariosEditor study={data} onChanged={study.refresh} />
      <QuestionnaireEditor study={data} onSaved={study.refresh} />
    </>
  );
}

// --- settings -----------------------------------------------------------------------------

function SettingsForm({ study, onSaved }: { study: StudyDetail; onSaved: () => void }) {
  const [draft, setDraft] = useState({
    title: study.title,
    description: study.description,
    seconds_per_scenario: String(study.seconds_per_scenario),
    free_play_minutes: String(study.free_play_minutes),
    order_policy: study.order_policy,
    retest_round: study.retest_round,
    scale_labels: study.scale_labels.join(', '),
    language: study.language,
  });
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const errors = fieldErrors(action.error);
  const set = (patch: Partial<typeof draft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setSaved(false);
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const body = {
      title: draft.title,
      description: draft.description,
      seconds_per_scenario: toNumber(draft.seconds_per_scenario),
      free_play_minutes: toNumber(draft.free_play_minutes),
      order_policy: draft.order_policy,
      retest_round: draft.retest_round,
      language: draft.language,
      scale_labels: draft.scale_labels
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    };
    const result = await action.run(() => sendJSON<StudyDetail>('PATCH', studyPath(study.id), body));
    if (result) {
      setSaved(true);
      onSaved();
    }
  };

  return (
    <section aria-labelledby="settings-heading">
      <h3 id="settings-heading">Settings and timing</h3>
      <form className="form card form--grid" onSubmit={(event) => void submit(event)} noValidate aria-label="Study settings">
        <Field label="Title" error={errors.title}>
          {(props) => <input {...props} value={draft.title} onChange={(e) => { set({ title: e.target.value }); }} />}
        </Field>
        <Field label="Description" error={errors.description}>
          {(props) => (
            <textarea {...props} rows={2} value={draft.description} onChange={(e) => { set({ description: e.target.value }); }} />
          )}
        </Field>
        <Field label="Seconds per scenario" error={errors.seconds_per_scenario} hint="Play time of each scenario (5–3600 s).">
          {(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              value={draft.seconds_per_scenario}
              onChange={(e) => { set({ seconds_per_scenario: e.target.value }); }}
            />
          )}
        </Field>
        <Field label="Free play (minutes)" error={errors.free_play_minutes} hint="Unimpaired warm-up before the first scenario (0–120).">
          {(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              value={draft.free_play_minutes}
              onChange={(e) => { set({ free_play_minutes: e.target.value }); }}
            />
          )}
        </Field>
        <Field label="Scenario order" error={errors.order_policy} hint="The baseline always comes first.">
          {(props) => (
            <select {...props} value={draft.order_policy} onChange={(e) => { set({ order_policy: e.target.value as OrderPolicy }); }}>
              <option value="random">Random per session (seed stored)</option>
              <option value="latin_square">Balanced Latin square across participants</option>
            </select>
          )}
        </Field>
        <Field
          label="Participant language"
          error={errors.language}
          hint="The participant's screens start in it; the participant can switch, and a session link can name another."
        >
          {(props) => (
            <select {...props} value={draft.language} onChange={(e) => { set({ language: e.target.value as StudyLanguage }); }}>
              <option value="en">English</option>
              <option value="de">Deutsch</option>
            </select>
          )}
        </Field>
        <Field label="Rating scale labels (lowest first, comma-separated)" error={errors.scale_labels}>
          {(props) => <input {...props} value={draft.scale_labels} onChange={(e) => { set({ scale_labels: e.target.value }); }} />}
        </Field>
        <div className="field field--checkbox">
          <label>
            <input type="checkbox" checked={draft.retest_round} onChange={(e) => { set({ retest_round: e.target.checked }); }} /> Repeat
            every non-baseline scenario in a second round (test–retest)
          </label>
          {errors.retest_round && <p className="field-error">{errors.retest_round}</p>}
        </div>
        <div className="form__actions">
          <button type="submit" className="button button--primary" disabled={action.busy}>
            Save settings
          </button>
          {saved && <span role="status" className="ok-text">Saved.</span>}
          {errors[''] && <ActionError error={errors['']} />}
        </div>
      </form>
    </section>
  );
}

function toNumber(text: string): number | string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : trimmed;
}

// --- games --------------------------------------------------------------------------------

const PACES: { value: Pace; label: string }[] = [
  { value: 'fast', label: 'fast (first-person)' },
  { value: 'medium', label: 'medium (third-person)' },
  { value: 'slow', label: 'slow (omnipresent)' },
];

function GamesEditor({ study, onChanged }: { study: StudyDetail; onChanged: () => void }) {
  return (
    <section aria-labelledby="games-heading">
      <h3 id="games-heading">Games</h3>
      <p className="muted">The pace class follows Claypool &amp; Claypool: how fast the player must react.</p>
      <div className="table-wrap">
        <table className="data-table edit-table" aria-label="Games">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Pace class</th>
              <th scope="col">Genre</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {study.games.map((game) => (
              <GameRow key={JSON.stringify(game)} studyId={study.id} game={game} onChanged={onChanged} />
            ))}
            <GameRow key={`new-${study.games.length}`} studyId={study.id} game={null} onChanged={onChanged} />
          </tbody>
        </table>
      </div>
    </section>
  );
}

function GameRow({ studyId, game, onChanged }: { studyId: number; game: Game | null; onChanged: () => void }) {
  const [draft, setDraft] = useState<{ name: string; pace: Pace | ''; genre: string }>({
    name: game?.name ?? '',
    pace: game?.pace ?? '',
    genre: game?.genre ?? '',
  });
  const row = useEditRow(onChanged);
  const errors = row.errors;
  const label = game ? game.name : 'new game';
  const dirty = game ? draft.name !== game.name || draft.pace !== game.pace || draft.genre !== game.genre : true;

  const save = () =>
    row.save(() =>
      game
        ? sendJSON<Game>('PATCH', gamePath(game.id), draft)
        : sendJSON<Game>('POST', gamesPath(), { ...draft, study: studyId }),
    );

  return (
    <tr className={game ? undefined : 'is-new'}>
      <td>
        <input aria-label={`Name of ${label}`} aria-invalid={Boolean(errors.name)} value={draft.name} placeholder={game ? undefined : 'Add a game…'} onChange={(e) => { setDraft({ ...draft, name: e.target.value }); }} />
        {errors.name && <p className="field-error">{errors.name}</p>}
      </td>
      <td>
        <select aria-label={`Pace class of ${label}`} aria-invalid={Boolean(errors.pace)} value={draft.pace} onChange={(e) => { setDraft({ ...draft, pace: e.target.value as Pace }); }}>
          <option value="">choose…</option>
          {PACES.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
        {errors.pace && <p className="field-error">{errors.pace}</p>}
      </td>
      <td>
        <input aria-label={`Genre of ${label}`} value={draft.genre} onChange={(e) => { setDraft({ ...draft, genre: e.target.value }); }} />
      </td>
      <RowActions
        isNew={!game}
        busy={row.busy}
        dirty={dirty}
        onSave={save}
        removeLabel="Delete"
        onRemove={game ? () => row.remove(gamePath(game.id), `Delete the game ${game.name}?`) : undefined}
        error={errors[''] ?? errors.study}
      />
    </tr>
  );
}

/** One row of an edit table: saves or deletes it through one action, then reloads the study. */
function useEditRow(onChanged: () => void) {
  const action = useAction();
  const save = async (request: () => Promise<unknown>) => {
    const result = await action.run(request);
    if (result) onChanged();
  };
  const remove = async (path: string, question: string) => {
    if (!window.confirm(question)) return;
    const result = await action.run(async () => {
      await sendJSON('DELETE', path);
      return true;
    });
    if (result) onChanged();
  };
  return { busy: action.busy, errors: fieldErrors(action.error), save, remove };
}

function RowActions({
  isNew,
  busy,
  dirty,
  onSave,
  removeLabel,
  onRemove,
  error,
}: {
  isNew: boolean;
  busy: boolean;
  dirty: boolean;
  onSave: () => Promise<void>;
  removeLabel: string;
  onRemove: (() => Promise<void>) | undefined;
  error: string | undefined;
}) {
  return (
    <td className="edit-table__actions">
      <button type="button" className="button" disabled={busy || !dirty} onClick={() => void onSave()}>
        {isNew ? 'Add' : 'Save'}
      </button>
      {onRemove && (
        <button type="button" className="button button--quiet" disabled={busy} onClick={() => void onRemove()}>
          {removeLabel}
        </button>
      )}
      {error && <p className="field-error" role="alert">{error}</p>}
    </td>
  );
}

// --- scenarios ----------------------------------------------------------------------------

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

function ScenariosEditor({ study, onChanged }: { study: StudyDetail; onChanged: () => void }) {
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

// --- questionnaire ------------------------------------------------------------------------

interface QuestionDraft {
  key: string;
  phase: 'pre' | 'post';
  kind: QuestionKind;
  text: string;
  choices: string;
  required: boolean;
}

function QuestionnaireEditor({ study, onSaved }: { study: StudyDetail; onSaved: () => void }) {
  const [rows, setRows] = useState<QuestionDraft[]>(() =>
    study.questionnaire.map((q) => ({ key: q.key, phase: q.phase, kind: q.kind, text: q.text, choices: (q.choices ?? []).join(', '), required: q.required })),
  );
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const errors = fieldErrors(action.error);
  const update = (index: number, patch: Partial<QuestionDraft>) => {
    setRows((all) => all.map((row, i) => (i === index ? { ...row, ...patch } : row)));
    setSaved(false);
  };

  const save = async () => {
    const questionnaire: Question[] = rows.map((row) => ({
      key: row.key.trim(),
      phase: row.phase,
      kind: row.kind,
      text: row.text,
      required: row.required,
      ...(row.kind === 'choice' ? { choices: row.choices.split(',').map((c) => c.trim()).filter(Boolean) } : {}),
    }));
    const result = await action.run(() => sendJSON<StudyDetail>('PATCH', studyPath(study.id), { questionnaire }));
    if (result) {
      setSaved(true);
      onSaved();
    }
  };

  return (
    <section aria-labelledby="questionnaire-heading">
      <h3 id="questionnaire-heading">Questionnaire</h3>
      <p className="muted">
        Consent, age, gaming skill and genre preference are always asked before play. Add study questions for before
        play (pre) or after the last rating (post).
      </p>
      <div className="table-wrap">
        <table className="data-table edit-table" aria-label="Questionnaire">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">Question</th>
              <th scope="col">Choices (comma-separated)</th>
              <th scope="col">Required</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const err = (field: string) => errors[`questionnaire.${index}.${field}`];
              const n = row.key || `question ${index + 1}`;
              return (
                <tr key={index}>
                  <td>
                    <input aria-label={`Key of ${n}`} aria-invalid={Boolean(err('key'))} value={row.key} onChange={(e) => { update(index, { key: e.target.value }); }} />
                    {err('key') && <p className="field-error">{err('key')}</p>}
                  </td>
                  <td>
                    <select aria-label={`When to ask ${n}`} value={row.phase} onChange={(e) => { update(index, { phase: e.target.value as 'pre' | 'post' }); }}>
                      <option value="pre">before play</option>
                      <option value="post">after the last rating</option>
                    </select>
                  </td>
                  <td>
                    <select aria-label={`Kind of ${n}`} value={row.kind} onChange={(e) => { update(index, { kind: e.target.value as QuestionKind }); }}>
                      <option value="choice">choice</option>
                      <option value="text">text</option>
                      <option value="integer">whole number</option>
                      <option value="boolean">yes / no</option>
                    </select>
                  </td>
                  <td>
                    <textarea aria-label={`Text of ${n}`} aria-invalid={Boolean(err('text'))} rows={2} value={row.text} onChange={(e) => { update(index, { text: e.target.value }); }} />
                    {err('text') && <p className="field-error">{err('text')}</p>}
                  </td>
                  <td>
                    <input aria-label={`Choices of ${n}`} aria-invalid={Boolean(err('choices'))} disabled={row.kind !== 'choice'} value={row.choices} onChange={(e) => { update(index, { choices: e.target.value }); }} />
                    {err('choices') && <p className="field-error">{err('choices')}</p>}
                  </td>
                  <td>
                    <input type="checkbox" aria-label={`${n} is required`} checked={row.required} onChange={(e) => { update(index, { required: e.target.checked }); }} />
                  </td>
                  <td className="edit-table__actions">
                    <button type="button" className="button button--quiet" onClick={() => { setRows((all) => all.filter((_, i) => i !== index)); setSaved(false); }}>
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="form__actions">
        <button
          type="button"
          className="button"
          onClick={() => {
            setRows((all) => [...all, { key: '', phase: 'post', kind: 'choice', text: '', choices: '', required: false }]);
          }}
        >
          Add a question
        </button>
        <button type="button" className="button button--primary" disabled={action.busy} onClick={() => void save()}>
          Save questionnaire
        </button>
        {saved && <span role="status" className="ok-text">Saved.</span>}
        {(errors.questionnaire ?? errors['']) && <p className="field-error" role="alert">{errors.questionnaire ?? errors['']}</p>}
      </div>
    </section>
  );
}
