import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { ImportJob } from '../api';
import { jsonResponse } from '../test/fetchMock';
import { withQueries } from '../test/queries';
import { ImportRatingsForm } from './ImportRatings';

const job = (changes: Partial<ImportJob>): ImportJob => ({
  id: 5,
  study: 1,
  file_name: '',
  file_sha256: 'ab'.repeat(32),
  file_bytes: 3_800_000,
  rows_total: 40_000,
  rows_done: 0,
  state: 'queued',
  progress: 0,
  stage: '',
  sessions: null,
  ratings: null,
  participants_created: null,
  error: '',
  error_line: null,
  error_column: '',
  attempts: 0,
  worker: '',
  created_at: '2026-11-23T18:00:00Z',
  started_at: null,
  finished_at: null,
  ...changes,
});

/** POST answers with the queued job, each GET with the next of `polls` (the last repeats). */
function serve(polls: ImportJob[]) {
  const requests: string[] = [];
  let next = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      requests.push(`${init?.method ?? 'GET'} ${url}`);
      if (init?.method === 'POST') return Promise.resolve(jsonResponse(job({}), 202, 'Accepted'));
      if (url.startsWith('/api/v1/sessions/')) return Promise.resolve(jsonResponse([]));
      const answer = polls[Math.min(next, polls.length - 1)];
      next += 1;
      return Promise.resolve(jsonResponse(answer));
    }),
  );
  return requests;
}

const csv = new File(['rater_id,session_id\n'], 'ratings.csv', { type: 'text/csv' });

function importFile() {
  render(withQueries(<ImportRatingsForm studyId={1} />));
  fireEvent.change(screen.getByLabelText('Import ratings from a tidy CSV (all or nothing)'), { target: { files: [csv] } });
  fireEvent.click(screen.getByRole('button', { name: 'Import' }));
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('ImportRatingsForm', { timeout: 20_000 }, () => {
  it('shows the job progress until it is done', async () => {
    const requests = serve([
      job({ state: 'running', rows_done: 16_000, progress: 0.32, stage: 'checking rows' }),
      job({ state: 'running', rows_done: 40_000, progress: 0.8, stage: 'writing' }),
      job({ state: 'succeeded', rows_done: 40_000, progress: 1, stage: 'done', sessions: 4000, ratings: 40_000, participants_created: 1334 }),
    ]);
    importFile();
    expect(await screen.findByText(/checked 16000 of 40000 rows \(32 %\)/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Importing…' })).toBeDisabled();
    expect(await screen.findByText(/storing 40000 rows \(80 %\)/, {}, { timeout: 5000 })).toBeInTheDocument();
    expect(
      await screen.findByText('Imported 40000 ratings in 4000 sessions (1334 new participants).', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(requests[0]).toBe('POST /api/v1/studies/1/import/');
    expect(requests).toContain('GET /api/v1/import-jobs/5/');
    expect(screen.getByRole('button', { name: 'Import' })).toBeEnabled();
  });

  it('shows a refused file with its line and column', async () => {
    serve([
      job({
        state: 'failed',
        error: 'line 5001: rating: 7 is greater than the maximum of 5',
        error_line: 5001,
        error_column: 'rating',
      }),
    ]);
    importFile();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Import rejected: line 5001: rating: 7 is greater than the maximum of 5 (column rating). Nothing was stored.',
    );
  });
});
