import type { AnalysisState } from './useAnalysis';

/** Progress of an analysis job: a labelled progress bar, or the failure in words. */
export function AnalysisProgress({ state, onRetry }: { state: AnalysisState; onRetry: () => void }) {
  if (state.status === 'idle' || state.status === 'done' || state.status === 'no-ratings') return null;
  if (state.status === 'failed') {
    return (
      <div className="status status--error" role="alert">
        <p>The analysis could not run: {state.message}</p>
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      </div>
    );
  }
  const fraction = state.status === 'running' ? state.job.progress : 0;
  const stage = state.status === 'running' ? (state.job.state === 'queued' ? 'waiting for a worker' : state.job.stage || 'starting') : 'starting';
  return (
    <div className="analysis-progress" role="status">
      <label>
        Analysing the ratings — {stage} ({Math.round(fraction * 100)} %)
        <progress max={1} value={fraction} />
      </label>
    </div>
  );
}
