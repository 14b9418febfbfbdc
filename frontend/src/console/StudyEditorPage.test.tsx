import { render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { StudyDetail } from '../api';
import { mockFetch } from '../test/fetchMock';
import { exampleStudy } from '../test/fixtures';
import { withQueries } from '../test/queries';
import { StudyEditorPage } from './StudyEditorPage';
import { FACTOR_CATALOG } from './studyEditor/factorCatalog.fixture';

afterEach(() => {
  vi.unstubAllGlobals();
});

const [baseline] = exampleStudy.scenarios;
if (baseline === undefined) throw new Error('the example study has scenarios');

/** An imported study: analysis-only, with more conditions than the editor lists. */
const imported: StudyDetail = {
  ...exampleStudy,
  id: 5,
  title: 'P.809 dataset',
  analysis_only: true,
  questionnaire: [{ key: 'testbed', phase: 'pre', kind: 'choice', text: 'testbed', choices: ['wired', 'mobile'], required: false }],
  scenarios: Array.from({ length: 150 }, (_, i) => ({
    ...baseline,
    id: 100 + i,
    code: `C${String(i + 1).padStart(4, '0')}`,
    position: i,
    is_baseline: false,
  })),
};

function renderEditor(study: StudyDetail) {
  mockFetch({ [`/api/v1/studies/${study.id}/`]: { body: study }, '/api/v1/factors/': { body: FACTOR_CATALOG } });
  render(
    withQueries(
      <MemoryRouter initialEntries={[`/console/studies/${study.id}`]}>
        <Routes>
          <Route path="/console/studies/:studyId" element={<StudyEditorPage />} />
        </Routes>
      </MemoryRouter>,
    ),
  );
}

describe('StudyEditorPage', { timeout: 20_000 }, () => {
  it('shows an analysis-only study read-only, says why and links to its results', async () => {
    renderEditor(imported);
    const note = await screen.findByTestId('analysis-only-note');
    expect(note).toHaveTextContent(
      "Imported from a dataset: this study is analysis-only — its design is the data's, so it is shown read-only. See its results.",
    );
    expect(within(note).getByRole('link', { name: 'See its results' })).toHaveAttribute('href', '/console/studies/5/results');
    // nothing to edit: the only form is the clone's (a clone is a runnable copy)
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual(['Clone study']);
    expect(screen.queryByRole('form', { name: 'New scenario' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Design generator' })).toBeNull();
    expect(screen.getByRole('table', { name: 'Rating items' })).toHaveTextContent('overall');
    expect(screen.getByRole('table', { name: 'Questionnaire' })).toHaveTextContent('testbedchoicewired, mobile');
    expect(screen.getByText('Games (3)')).toBeInTheDocument();
    expect(screen.getByText('Conditions (150; the first 100 shown)')).toBeInTheDocument();
    expect(await screen.findByText(/A clone is a runnable lab study with this design, to collect new ratings \(at most/)).toBeInTheDocument();
  });

  it('edits a lab study as before', async () => {
    renderEditor(exampleStudy);
    expect(await screen.findByRole('form', { name: 'New scenario' })).toBeInTheDocument();
    expect(screen.queryByTestId('analysis-only-note')).toBeNull();
  });
});
