/**
 * A dataset import job followed to its end: polled every half second while it is queued or
 * running (its progress shown), then either every problem the loader found (nothing was
 * stored) or the new analysis-only study with a link to its results, the loader's counts
 * and its warnings (undeclared columns, missing values, derived sessions…).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';

import { apiKey, studiesPath, useApiQuery } from '../../api';
import { ActionError } from '../ui';
import { datasetJobPath } from './api';
import type { DatasetJob, DatasetSummary } from './api';
import { ProblemList } from './ProblemList';

const POLL_MS = 500;

const finished = (job: DatasetJob | undefined): boolean => job?.state === 'succeeded' || job?.state === 'failed';

/** What the job is doing, in words. */
export function jobStage(job: DatasetJob): string {
  if (job.state === 'queued') return 'waiting for a worker';
  if (job.stage === 'writing') return job.rows_total > 0 ? `storing the study (${job.rows_total} rows)` : 'storing the study';
  return job.stage || 'reading the files';
}

/** The loader's counts in one sentence (the parts the summary has). */
export function summaryText(summary: DatasetSummary | null | undefined): string {
  if (!summary) return '';
  const parts: string[] = [];
  const ratings = summary.ratings;
  if (ratings) parts.push(`${ratings.kept} ratings kept of ${ratings.read} (${ratings.dropped} without a rating dropped)`);
  if (summary.n_raters !== undefined) parts.push(`${summary.n_raters} raters`);
  if (summary.n_sessions !== undefined) parts.push(`${summary.n_sessions} sessions`);
  if (summary.n_conditions !== undefined) parts.push(`${summary.n_conditions} conditions`);
  return parts.length > 0 ? `${parts.join(', ')}.` : '';
}

function Succeeded({ job, title }: { job: DatasetJob; title: string }) {
  const warnings = job.warnings;
  const summary = summaryText(job.summary);
  return (
    <div className="card" role="status" data-testid="dataset-imported">
      <p className="ok-text">
        Imported {title ? `“${title}”` : 'the dataset'} as a new analysis-only study.
      </p>
      {summary && <p data-testid="dataset-summary">{summary}</p>}
      {warnings.length > 0 && (
        <ul aria-label="Warnings" data-testid="dataset-warnings">
          {warnings.map((warning, index) => (
            <li key={`${warning.code}-${index}`} data-code={warning.code}>
              {warning.message}
            </li>
          ))}
        </ul>
      )}
      {job.study !== null && (
        <p className="card__links">
          <Link to={`/console/studies/${job.study}/results`} data-testid="dataset-results-link">
            Open its results
          </Link>
          <Link to={`/console/studies/${job.study}`}>Its design</Link>
        </p>
      )}
    </div>
  );
}

export function JobStatus({ started, title }: { started: DatasetJob; title: string }) {
  const queryClient = useQueryClient();
  const poll = useApiQuery<DatasetJob>(finished(started) ? null : datasetJobPath(started.id), {
    refetchInterval: (data) => (finished(data) ? false : POLL_MS),
  });
  const job = poll.data?.id === started.id ? poll.data : started;
  const done = job.state === 'succeeded';
  useEffect(() => {
    // A new study: the studies list reloads.
    if (done) void queryClient.invalidateQueries({ queryKey: apiKey(studiesPath()) });
  }, [done, queryClient]);

  if (job.state === 'succeeded') return <Succeeded job={job} title={title} />;
  if (job.state === 'failed') {
    const problems = job.problems;
    if (problems.length === 0) {
      return (
        <p role="alert" className="status status--error" data-testid="dataset-problems">
          Import failed: {job.error || 'the job stopped'}. Nothing was stored.
        </p>
      );
    }
    return <ProblemList heading="Import failed:" detail={job.error} problems={problems} more={job.more} />;
  }
  return (
    <div className="analysis-progress" role="status" data-testid="dataset-job">
      <label>
        Importing — {jobStage(job)} ({Math.round(job.progress * 100)} %)
        <progress max={1} value={job.progress} />
      </label>
      <ActionError error={poll.error} prefix="Could not follow the import" />
    </div>
  );
}
