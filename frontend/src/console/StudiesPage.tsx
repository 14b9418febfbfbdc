import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Link, useNavigate } from 'react-router';

import { apiKey, fieldErrors, sendJSON, studiesPath, useApiQuery } from '../api';
import type { StudyDetail, StudySummary } from '../api';
import { EmptyState, ErrorMessage, Loading } from '../components/StatusMessage';
import { useAction } from './hooks';
import { ImportDesignForm } from './ImportDesignForm';
import { slugify } from './slugify';
import { ActionError, Field } from './ui';

/** `/console` — the researcher's studies, with a form to start a new one. */
export function StudiesPage() {
  const studies = useApiQuery<StudySummary[]>(studiesPath(), { keepPrevious: true });
  return (
    <>
      <h2>Studies</h2>
      {studies.isError && (
        <ErrorMessage title="Could not load studies" error={studies.error} onRetry={() => void studies.refetch()} />
      )}
      {studies.isPending && <Loading>Loading studies…</Loading>}
      {studies.isSuccess &&
        (studies.data.length === 0 ? (
          <EmptyState>
            <p>No study yet. Create one below, or load the example with <code>make demo</code>.</p>
          </EmptyState>
        ) : (
          <ul className="card-list" aria-label="Studies">
            {studies.data.map((study) => (
              <li key={study.id} className="card">
                <h3 className="card__title">
                  <Link to={`/console/studies/${study.id}`}>{study.title}</Link>
                </h3>
                <p className="muted">
                  <code>{study.slug}</code> · {study.game_count} games · {study.scenario_count} scenarios
                </p>
                <p className="card__links">
                  <Link to={`/console/studies/${study.id}`}>Design</Link>
                  <Link to={`/console/studies/${study.id}/sessions`}>Sessions</Link>
                  <Link to={`/console/studies/${study.id}/progress`}>Progress</Link>
                  <Link to={`/console/studies/${study.id}/results`}>Results</Link>
                </p>
              </li>
            ))}
          </ul>
        ))}
      <NewStudyForm />
      <ImportDesignForm />
      <section aria-labelledby="import-dataset">
        <h3 id="import-dataset">Import a dataset</h3>
        <p className="card">
          Ratings collected elsewhere (CSV files, with or without a descriptor) become an analysis-only study:{' '}
          <Link to="/console/datasets/import">Import a dataset</Link>
        </p>
      </section>
    </>
  );
}

function NewStudyForm() {
  const navigate = useNavigate();
  const [title, setTitle] = useState('');
  const [slug, setSlug] = useState('');
  const action = useAction();
  const errors = fieldErrors(action.error);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const created = await action.run(() => sendJSON<StudyDetail>('POST', studiesPath(), { title, slug }), [apiKey(studiesPath())]);
    if (created) void navigate(`/console/studies/${created.id}`);
  };

  return (
    <section aria-labelledby="new-study">
      <h3 id="new-study">New study</h3>
      <form className="form card form--inline" onSubmit={(event) => void submit(event)} noValidate>
        <Field label="Title" error={errors.title}>
          {(props) => (
            <input
              {...props}
              value={title}
              onChange={(event) => {
                setTitle(event.target.value);
                if (!slug || slug === slugify(title)) setSlug(slugify(event.target.value));
              }}
            />
          )}
        </Field>
        <Field label="Slug" error={errors.slug} hint="Short identifier used in file names.">
          {(props) => (
            <input
              {...props}
              value={slug}
              onChange={(event) => {
                setSlug(event.target.value);
              }}
            />
          )}
        </Field>
        <button type="submit" className="button button--primary" disabled={action.busy}>
          Create study
        </button>
        {errors[''] && <ActionError error={errors['']} />}
      </form>
    </section>
  );
}
