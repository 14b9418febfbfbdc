/**
 * Clones the study (games, current scenarios, questionnaire, settings; no sessions, no
 * stations) under a new slug and title, then opens the clone. The form is named "Clone
 * this study"; fields "Title of the clone" and "Slug of the clone"; button "Clone study".
 */
import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { useNavigate } from 'react-router';

import { apiKey, fieldErrors, sendJSON, studiesPath, studyClonePath } from '../api';
import type { StudyDetail } from '../api';
import { useAction } from './hooks';
import { slugify } from './slugify';
import { ActionError, Field } from './ui';

export function CloneStudyForm({ study }: { study: StudyDetail }) {
  const navigate = useNavigate();
  const [title, setTitle] = useState(`${study.title} (copy)`);
  const [slug, setSlug] = useState(slugify(`${study.slug}-copy`));
  const action = useAction();
  const errors = fieldErrors(action.error);
  const other = Object.entries(errors)
    .filter(([key]) => key !== 'title' && key !== 'slug')
    .map(([key, message]) => (key ? `${key}: ${message}` : message))
    .join(' ');

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const clone = await action.run(() => sendJSON<StudyDetail>('POST', studyClonePath(study.id), { slug: slug.trim(), title: title.trim() }), [
      apiKey(studiesPath()),
    ]);
    if (clone) void navigate(`/console/studies/${clone.id}`);
  };

  return (
    <section aria-labelledby="clone-heading">
      <h3 id="clone-heading">Clone this study</h3>
      <p className="muted">A new study with the same games, scenarios, questionnaire and settings; no sessions.</p>
      <form className="form card form--inline" aria-labelledby="clone-heading" onSubmit={(e) => void submit(e)} noValidate>
        <Field label="Title of the clone" error={errors.title}>
          {(props) => (
            <input
              {...props}
              value={title}
              onChange={(e) => {
                setTitle(e.target.value);
              }}
            />
          )}
        </Field>
        <Field label="Slug of the clone" error={errors.slug} hint="Short identifier used in file names.">
          {(props) => (
            <input
              {...props}
              value={slug}
              onChange={(e) => {
                setSlug(e.target.value);
              }}
            />
          )}
        </Field>
        <button type="submit" className="button" disabled={action.busy}>
          Clone study
        </button>
        {other ? <ActionError error={other} prefix="Not cloned" /> : !errors.title && !errors.slug && <ActionError error={action.error} prefix="Not cloned" />}
      </form>
    </section>
  );
}
