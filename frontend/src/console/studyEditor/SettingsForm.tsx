/**
 * The study's settings form: timing, order policy, language and the rehearsal flag. The scale
 * labels are shown read-only, with a pointer: they are set in one place only, each item's in
 * the rating items editor (issue 35: two places to set them disagreed).
 */
import { useState } from 'react';
import type { SyntheticEvent } from 'react';

import { fieldErrors, sendJSON, studyPath } from '../../api';
import type { OrderPolicy, StudyDetail, StudyLanguage } from '../../api';
import { useAction } from '../hooks';
import { ActionError, Field } from '../ui';
import { toNumber } from './editRow';

export function SettingsForm({ study, onSaved }: { study: StudyDetail; onSaved: () => void }) {
  const [draft, setDraft] = useState({
    title: study.title,
    description: study.description,
    seconds_per_scenario: String(study.seconds_per_scenario),
    free_play_minutes: String(study.free_play_minutes),
    order_policy: study.order_policy,
    retest_round: study.retest_round,
    language: study.language,
    rehearsal: study.rehearsal,
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
      rehearsal: draft.rehearsal,
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
        <ScaleLabelsSummary study={study} />
        <div className="field field--checkbox">
          <label>
            <input type="checkbox" checked={draft.retest_round} onChange={(e) => { set({ retest_round: e.target.checked }); }} /> Repeat
            every non-baseline scenario in a second round (test–retest)
          </label>
          {errors.retest_round && <p className="field-error">{errors.retest_round}</p>}
        </div>
        <div className="field field--checkbox">
          <label>
            <input type="checkbox" checked={draft.rehearsal} onChange={(e) => { set({ rehearsal: e.target.checked }); }} /> Rehearsal:
            may run on dry-run agents (they apply nothing to the network; the ratings are marked dry-run)
          </label>
          <p className="field-hint">
            In production a session on a dry-run agent is refused unless the study is a rehearsal. Leave it off for real data.
          </p>
          {errors.rehearsal && <p className="field-error">{errors.rehearsal}</p>}
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

/** The labels of each rating item's scale, read-only, and where to change them. */
function ScaleLabelsSummary({ study }: { study: StudyDetail }) {
  return (
    <div className="field" role="group" aria-labelledby="settings-scale-labels">
      <p id="settings-scale-labels" className="field-label">
        Rating scale labels
      </p>
      <ul className="plain-list" data-testid="settings-scale-labels">
        {study.rating_items.map((item) => (
          <li key={item.key}>
            {item.key}: {item.scale.labels.length > 0 ? item.scale.labels.map((l) => `${l.value} ${l.text.en}`).join(' · ') : `${item.scale.min}–${item.scale.max}, no labels`}
          </li>
        ))}
      </ul>
      <p className="field-hint">
        Set per rating item, under <a href="#rating-items-heading">Rating items</a>.
      </p>
    </div>
  );
}
