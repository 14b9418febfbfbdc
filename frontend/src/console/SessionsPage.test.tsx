import { render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { StudyDetail } from '../api';
import { mockFetch } from '../test/fetchMock';
import { exampleStudy } from '../test/fixtures';
import { withQueries } from '../test/queries';
import { SessionsPage } from './SessionsPage';

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderSessions(study: StudyDetail) {
  mockFetch({
    [`/api/v1/studies/${study.id}/`]: { body: study },
    [`/api/v1/sessions/?study=${study.id}`]: { body: [] },
    [`/api/v1/participants/?study=${study.id}`]: { body: [] },
    '/api/v1/stations/': { body: [] },
  });
  render(
    withQueries(
      <MemoryRouter initialEntries={[`/console/studies/${study.id}/sessions`]}>
        <Routes>
          <Route path="/console/studies/:studyId/sessions" element={<SessionsPage />} />
        </Routes>
      </MemoryRouter>,
    ),
  );
}

describe('SessionsPage', { timeout: 20_000 }, () => {
  it('offers no session run for an analysis-only study: a note instead, with its results', async () => {
    renderSessions({ ...exampleStudy, id: 5, analysis_only: true });
    const note = await screen.findByTestId('analysis-only-note');
    expect(note).toHaveTextContent(
      "Imported from a dataset: this study is analysis-only — it cannot be run at a station; its sessions are the data's. See its results.",
    );
    expect(within(note).getByRole('link', { name: 'See its results' })).toHaveAttribute('href', '/console/studies/5/results');
    expect(await screen.findByText('No session yet.')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'New session' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Run a session' })).toBeNull();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('offers the session form for a lab study', async () => {
    renderSessions(exampleStudy);
    expect(await screen.findByRole('form', { name: 'New session' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create session and open the console' })).toBeInTheDocument();
    expect(screen.queryByTestId('analysis-only-note')).toBeNull();
  });
});
