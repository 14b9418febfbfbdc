import { useCallback, useState } from 'react';
import { useQuery } from '@tanstack/react-query';

import { analysisJobPath, analysisJobsPath, ApiError, getJSON, sendJSON, studyAnalysisPath } from '../api';
import type { AnalysisJob } from '../api';
import { useApiQuery } from '../api';
import type { AnalysisDoc } from './analysisTypes';

export type Job = AnalysisJob<AnalysisDoc>;

export type AnalysisState =
  | { status: 'idle' }
  | { status: 'starting' }
  | { status: 'running'; job: Job }
  | { status: 'done'; job: Job }
  /** The study has no ratings of completed sessions: nothing to analyse yet (not a failure). */
  | { status: 'no-ratings' }
  | { status: 'failed'; message: string; job?: Job };

const POLL_MS = 1000;

const finished = (job: Job | undefined): boolean => job?.state === 'succeeded' || job?.state === 'failed';

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The backend's refusal to analyse a study without ratings (400, code "no_ratings"). */
const isNoRatings = (error: unknown): boolean =>
  error instanceof ApiError &&
  error.status === 400 &&
  typeof error.body === 'object' &&
  error.body !== null &&
  (error.body as { code?: unknown }).code === 'no_ratings';

/**
 * Starts (or re-uses) the analysis of a study and polls the job until it finishes.
 *
 * The start is a query, not a mutation, because `POST .../analysis/` is idempotent: the
 * backend answers with the cached job for the same study version and input, so asking again
 * after a remount costs nothing and shows the newest data. Its key holds the inputs and a
 * retry counter: new inputs, or `retry()`, start anew. The job is then polled by
 * `refetchInterval` until it has succeeded or failed. `progress` (0..1) and `stage` of a
 * running job drive the progress bar.
 */
export function useAnalysis(studyId: number, reliableOnly: boolean, enabled: boolean) {
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => {
    setAttempt((n) => n + 1);
  }, []);

  const start = useQuery({
    queryKey: ['analysis-start', studyId, reliableOnly, attempt],
    queryFn: ({ signal }) =>
      sendJSON<Job>('POST', studyAnalysisPath(studyId), { reliable_only: reliableOnly }, { signal }),
    enabled,
    staleTime: Infinity,
    gcTime: 0,
  });
  const started = start.data;
  const poll = useQuery({
    queryKey: ['analysis-job', started?.id, attempt],
    queryFn: ({ signal }) => getJSON<Job>(analysisJobPath(started?.id ?? 0), { signal }),
    enabled: enabled && started !== undefined && !finished(started),
    refetchInterval: (query) => (finished(query.state.data) ? false : POLL_MS),
    gcTime: 0,
  });

  let state: AnalysisState;
  const job = poll.data ?? started;
  if (!enabled) state = { status: 'idle' };
  else if (start.error && isNoRatings(start.error)) state = { status: 'no-ratings' };
  else if (start.error) state = { status: 'failed', message: message(start.error) };
  else if (poll.error) state = job ? { status: 'failed', message: message(poll.error), job } : { status: 'failed', message: message(poll.error) };
  else if (job === undefined) state = { status: 'starting' };
  else if (job.state === 'succeeded') state = { status: 'done', job };
  else if (job.state === 'failed') state = { status: 'failed', message: job.error || 'the analysis failed', job };
  else state = { status: 'running', job };
  return { state, retry };
}

/**
 * The analysis' refusal of "reliable raters only", or null. The reliable-raters job failed
 * (its `error`: the analysis' message with the numbers, e.g. fewer reliable raters than its
 * minimum) while the all-raters job on the same data succeeded: the data were fine, the
 * screening left too few raters. A request that never reached a job (network) is no refusal.
 */
export function reliableRefusal(all: AnalysisState, reliable: AnalysisState): string | null {
  if (all.status !== 'done' || reliable.status !== 'failed' || reliable.job?.state !== 'failed') return null;
  return reliable.message;
}

/** Finished analyses of a study (any version), newest first — for the version filter. */
export function usePastJobs(studyId: number): Job[] {
  const jobs = useApiQuery<Job[]>(analysisJobsPath());
  return (jobs.data ?? []).filter((j) => j.study === studyId && j.state === 'succeeded').sort((a, b) => b.id - a.id);
}
