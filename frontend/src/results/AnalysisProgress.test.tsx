import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { AnalysisProgress } from './AnalysisProgress';
import type { Job } from './useAnalysis';

const job = (state: Job['state'], stage: string, progress: number): Job =>
  ({
    id: 7,
    study: 1,
    study_version: 2,
    data_version: 31,
    reliable_only: false,
    state,
    stage,
    progress,
    error: '',
    result: null,
  }) as unknown as Job;

describe('AnalysisProgress', () => {
  it('shows a queued job as waiting for a worker', () => {
    render(<AnalysisProgress state={{ status: 'running', job: job('queued', '', 0) }} onRetry={() => undefined} />);
    expect(screen.getByRole('status')).toHaveTextContent('Analysing the ratings — waiting for a worker (0 %)');
  });

  it('names the phase of a running job — first the ratings table, then the analysis — with its progress', () => {
    const { rerender } = render(
      <AnalysisProgress state={{ status: 'running', job: job('running', 'building the ratings table', 0) }} onRetry={() => undefined} />,
    );
    expect(screen.getByRole('status')).toHaveTextContent('building the ratings table (0 %)');
    rerender(<AnalysisProgress state={{ status: 'running', job: job('running', 'weights', 0.42) }} onRetry={() => undefined} />);
    expect(screen.getByRole('status')).toHaveTextContent('weights (42 %)');
    expect(screen.getByRole('progressbar')).toHaveAttribute('value', '0.42');
  });

  it('shows nothing once the document is there (a cached analysis never flashes a bar)', () => {
    const { container } = render(
      <AnalysisProgress state={{ status: 'done', job: job('succeeded', 'done', 1) }} onRetry={() => undefined} />,
    );
    expect(container).toBeEmptyDOMElement();
  });

  it('offers to try again after a failure', () => {
    const onRetry = vi.fn();
    render(<AnalysisProgress state={{ status: 'failed', message: 'the study has no ratings' }} onRetry={onRetry} />);
    expect(screen.getByRole('alert')).toHaveTextContent('The analysis could not run: the study has no ratings');
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });
});
