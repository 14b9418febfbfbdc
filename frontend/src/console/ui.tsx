/** Small building blocks of the console's forms and pages. */
import { useId } from 'react';
import type { ReactNode } from 'react';
import { NavLink } from 'react-router';

import { ApiError } from '../api';

/** A labelled form control with its inline error (from the API) and an optional hint. */
export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: ReactNode;
  error?: string | undefined;
  hint?: ReactNode;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }) => ReactNode;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field--invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy })}
      {hint && (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** The error of a failed action, in words; `null` renders nothing. */
export function ActionError({ error, prefix }: { error: unknown; prefix?: string }) {
  if (error === null || error === undefined) return null;
  const message =
    error instanceof ApiError ? (error.detail ?? error.message) : error instanceof Error ? error.message : typeof error === 'string' ? error : 'unexpected error';
  return (
    <p className="field-error" role="alert">
      {prefix ? `${prefix}: ` : ''}
      {message}
    </p>
  );
}

/** Tabs of one study's pages. */
export function StudyNav({ studyId, title }: { studyId: number; title?: string | undefined }) {
  const base = `/console/studies/${studyId}`;
  return (
    <div className="study-nav">
      {title && <h2 className="study-nav__title">{title}</h2>}
      <nav aria-label="Study">
        <NavLink to={base} end>
          Design
        </NavLink>
        <NavLink to={`${base}/sessions`}>Sessions</NavLink>
        <NavLink to={`${base}/progress`}>Progress</NavLink>
        <NavLink to={`${base}/results`}>Results</NavLink>
        <NavLink to={`${base}/policy`}>Policy</NavLink>
        <NavLink to={`${base}/exports`}>Exports</NavLink>
      </nav>
    </div>
  );
}

export function useStudyId(raw: string | undefined): number | null {
  const id = Number(raw);
  return Number.isInteger(id) && id > 0 ? id : null;
}

/** Traffic-light health of a station's agent: the text carries the meaning. */
export function HealthLight({ ok, label }: { ok: boolean | null; label?: string }) {
  const text = label ?? (ok === null ? 'not checked' : ok ? 'healthy' : 'failing');
  const kind = ok === null ? 'unknown' : ok ? 'ok' : 'bad';
  return (
    <span className={`health health--${kind}`}>
      <span className="health__dot" aria-hidden="true" />
      {text}
    </span>
  );
}
