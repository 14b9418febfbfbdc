/** The study's own pre/post questions (beyond the built-in consent, age and skill). */
import { useState } from 'react';

import { fieldErrors, sendJSON, studyPath } from '../../api';
import type { Question, QuestionKind, StudyDetail } from '../../api';
import { useAction } from '../hooks';

interface QuestionDraft {
  key: string;
  phase: 'pre' | 'post';
  kind: QuestionKind;
  text: string;
  choices: string;
  required: boolean;
}

export function QuestionnaireEditor({ study, onSaved }: { study: StudyDetail; onSaved: () => void }) {
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
