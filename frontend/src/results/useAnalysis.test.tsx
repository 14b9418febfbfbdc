import { QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { analysisJobPath, studyAnalysisPath } from '../api';
import { createQueryClient } from '../api/queries';
import { mockFetch } from '../test/fetchMock';
import { useAnalysis } from './useAnalysis';

const wrapper = ({ children }: { children: ReactNode }) => (
  <QueryClientProvider client={createQueryClient()}>{children}</QueryClientProvider>
);

const job = (state: string, extra: Record<string, unknown> = {}) => ({
  id: 5,
  study: 1,
  study_version: 1,
  reliable_only: false,
  state,
  progress: state === 'succeeded' ? 1 : 0.4,
  stage: 'weights',
  error: '',
  result: state === 'succeeded' ? { meta: {} } : null,
  ...extra,
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('useAnalysis', () => {
  it('is idle until enabled, then starts the job and polls it until it succeeds', async () => {
    const fetchMock = mockFetch({
      [studyAnalysisPath(1)]: { status: 202, body: job('running') },
      [analysisJobPath(5)]: { body: job('succeeded') },
    });
    const { result, rerender } = renderHook(({ on }) => useAnalysis(1, false, on), {
      wrapper,
      initialProps: { on: false },
    });
    expect(result.current.state.status).toBe('idle');
    expect(fetchMock).not.toHaveBeenCalled();
    rerender({ on: true });
    await waitFor(() => {
      expect(result.current.state.status).toBe('done');
    });
    const paths = fetchMock.mock.calls.map(([input]) => (typeof input === 'string' ? input : ''));
    expect(paths).toEqual([studyAnalysisPath(1), analysisJobPath(5)]);
  });

  it('does not poll a job that the start answered as finished (a cached analysis)', async () => {
    const fetchMock = mockFetch({ [studyAnalysisPath(1)]: { body: job('succeeded') } });
    const { result } = renderHook(() => useAnalysis(1, false, true), { wrapper });
    await waitFor(() => {
      expect(result.current.state.status).toBe('done');
    });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('reports a failed job with its error, and a failed start with the API message', async () => {
    mockFetch({
      [studyAnalysisPath(1)]: { status: 202, body: job('running') },
      [analysisJobPath(5)]: { body: job('failed', { error: 'no ratings to analyse' }) },
    });
    const failedJob = renderHook(() => useAnalysis(1, false, true), { wrapper });
    await waitFor(() => {
      expect(failedJob.result.current.state).toMatchObject({ status: 'failed', message: 'no ratings to analyse' });
    });
    mockFetch({ [studyAnalysisPath(2)]: { status: 409, body: { detail: 'the study has no ratings yet' } } });
    const failedStart = renderHook(() => useAnalysis(2, false, true), { wrapper });
    await waitFor(() => {
      expect(failedStart.result.current.state.status).toBe('failed');
    });
    expect(failedStart.result.current.state).toMatchObject({ message: expect.stringContaining('no ratings yet') as unknown });
  });

  it('reports a study without ratings as no-ratings, not as a failure', async () => {
    mockFetch({
      [studyAnalysisPath(1)]: {
        status: 400,
        statusText: 'Bad Request',
        body: { detail: 'the study has no ratings of completed sessions to analyse', code: 'no_ratings' },
      },
    });
    const { result } = renderHook(() => useAnalysis(1, false, true), { wrapper });
    await waitFor(() => {
      expect(result.current.state.status).toBe('no-ratings');
    });
  });

  it('keeps any other 400 a failure with its message', async () => {
    mockFetch({
      [studyAnalysisPath(1)]: { status: 400, statusText: 'Bad Request', body: { detail: 'reliable_only: not a boolean' } },
    });
    const { result } = renderHook(() => useAnalysis(1, false, true), { wrapper });
    await waitFor(() => {
      expect(result.current.state.status).toBe('failed');
    });
  });
});
