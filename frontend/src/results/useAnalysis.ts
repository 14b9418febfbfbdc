import { useCallback, useEffect, useState } from 'react';

import { analysisJobPath, analysisJobsPath, getJSON, sendJSON, studyAnalysisPath } from '../api';
import type { AnalysisJob } from '../api';
import type { AnalysisDoc } from './analysisTypes';

export type Job = AnalysisJob<AnalysisDoc>;

export type AnalysisState =
  | { status: 'idle' }
  | { status: 'starting' }
  | { status: 'running'; job: Job }
  | { status: 'done'; job: Job }
  | { status: 'failed'; message: string; job?: Job };

const POLL_MS = 1000;

/**
 * Starts (or re-uses: the backend caches per study version and input) the analysis of a
 * study and polls the job until it finishes. `run` is called by the page when it wants
 * results; `progress` (0..1) and `stage` drive the progress bar.
 */
export function useAnalysis(studyId: number, reliableOnly: boolean, enabled: boolean) {
  const [state, setState] = useState<AnalysisState>({ status: 'idle' });
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => {
    setAttempt((n) => n + 1);
  }, []);

  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = (id: number) => {
      getJSON<Job>(analysisJobPath(id), { signal: controller.signal }).then(follow, fail);
    };
    const follow = (job: Job) => {
      if (controller.signal.aborted) return;
      if (job.state === 'succeeded') setState({ status: 'done', job });
      else if (job.state === 'failed') setState({ status: 'failed', message: job.error || 'the analysis failed', job });
      else {
        setState({ status: 'running', job });
        timer = setTimeout(() => {
          poll(job.id);
        }, POLL_MS);
      }
    };
    const fail = (error: unknown) => {
      if (controller.signal.aborted) return;
      setState({ status: 'failed', message: error instanceof Error ? error.message : String(error) });
    };
    queueMicrotask(() => {
      if (!controller.signal.aborted) setState({ status: 'starting' });
    });
    sendJSON<Job>('POST', studyAnalysisPath(studyId), { reliable_only: reliableOnly }, { signal: controller.signal }).then(follow, fail);
    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [studyId, reliableOnly, enabled, attempt]);

  return { state, retry };
}

/** Finished analyses of a study (any version), newest first — for the version filter. */
export async function listJobs(studyId: number, signal?: AbortSignal): Promise<Job[]> {
  const jobs = await getJSON<Job[]>(analysisJobsPath(), signal ? { signal } : undefined);
  return jobs.filter((j) => j.study === studyId && j.state === 'succeeded').sort((a, b) => b.id - a.id);
}
