import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { SyntheticEvent } from 'react';

import { apiKey, importJobPath, sendText, sessionsPath, studyImportPath, useApiQuery } from '../api';
import type { ImportJob } from '../api';
import { useAction } from './hooks';
import { ActionError } from './ui';

const POLL_MS = 500;

const finished = (job: ImportJob | undefined): boolean => job?.state === 'succeeded' || job?.state === 'failed';

/** What a job is doing, in words, for its progress bar. */
export function importStage(job: ImportJob): string {
  if (job.state === 'queued') return 'waiting for a worker';
  if (job.stage === 'writing') return `storing ${job.rows_total} rows`;
  return `checked ${job.rows_done} of ${job.rows_total} rows`;
}

/**
 * The ratings import: the file goes up as one request that answers with an import job at
 * once (202, or 200 with the earlier job when the same file was sent before); the job is
 * then polled until it has succeeded or failed, with its progress shown meanwhile.
 */
export function ImportRatingsForm({ studyId }: { studyId: number }) {
  const fileRef = useRef<HTMLInputElement>(null);
  const action = useAction();
  const queryClient = useQueryClient();
  const [started, setStarted] = useState<ImportJob | null>(null);
  const poll = useApiQuery<ImportJob>(started === null || finished(started) ? null : importJobPath(started.id), {
    refetchInterval: (data) => (finished(data) ? false : POLL_MS),
  });
  const polled = poll.data;
  const job = polled !== undefined && polled.id === started?.id ? polled : started;
  const done = job?.state === 'succeeded';
  useEffect(() => {
    // The import added sessions: the lists reload.
    if (done) void queryClient.invalidateQueries({ queryKey: apiKey(sessionsPath()) });
  }, [done, queryClient]);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const file = fileRef.current?.files?.[0];
    if (!file) return;
    setStarted(null);
    const created = await action.run(async () => sendText<ImportJob>(studyImportPath(studyId), await file.text(), 'text/csv'));
    if (created) setStarted(created);
  };
  const running = job !== null && !finished(job);
  return (
    <form className="form card form--inline" onSubmit={(event) => void submit(event)} aria-label="Import ratings">
      <div className="field">
        <label htmlFor="import-file">Import ratings from a tidy CSV (all or nothing)</label>
        <input id="import-file" ref={fileRef} type="file" accept=".csv,text/csv" />
      </div>
      <button type="submit" className="button" disabled={action.busy || running}>
        {action.busy ? 'Uploading…' : running ? 'Importing…' : 'Import'}
      </button>
      <ActionError error={action.error} prefix="Import rejected" />
      <ActionError error={poll.error} prefix="Could not follow the import" />
      {job && running && (
        <div className="analysis-progress" role="status">
          <label>
            Importing — {importStage(job)} ({Math.round(job.progress * 100)} %)
            <progress max={1} value={job.progress} />
          </label>
        </div>
      )}
      {job?.state === 'failed' && (
        <p role="alert" className="status status--error">
          Import rejected: {job.error}
          {job.error_column ? ` (column ${job.error_column})` : ''}. Nothing was stored.
        </p>
      )}
      {job?.state === 'succeeded' && (
        <p role="status" className="ok-text">
          Imported {job.ratings} ratings in {job.sessions} sessions ({job.participants_created} new participants).
        </p>
      )}
    </form>
  );
}
