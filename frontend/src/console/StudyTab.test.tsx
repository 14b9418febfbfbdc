import { render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';

import { mockFetch } from '../test/fetchMock';
import { withQueries } from '../test/queries';
import { StudyTab } from './StudyTab';

function renderAt(path: string) {
  render(
    withQueries(
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route
            path="/console/studies/:studyId/exports"
            element={<StudyTab after={(id) => <p>after {id}</p>}>{(study) => <p>body of {study.title}</p>}</StudyTab>}
          />
        </Routes>
      </MemoryRouter>,
    ),
  );
}

// Catches: the tab frame reading the wrong id, hiding a load error, or dropping the content after it.
describe('StudyTab', () => {
  it('shows the title, then the content with the loaded study, and what follows it', async () => {
    mockFetch({ '/api/v1/studies/3/': { body: { id: 3, title: 'Delay study' } } });
    renderAt('/console/studies/3/exports');
    expect(screen.getByText('after 3')).toBeInTheDocument();
    expect(await screen.findByText('body of Delay study')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Delay study' })).toBeInTheDocument();
  });

  it('says when the study cannot be loaded, and still shows what follows', async () => {
    mockFetch({});
    renderAt('/console/studies/4/exports');
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Could not load the study: .*Try again$/);
    expect(screen.queryByText(/body of/)).toBeNull();
    expect(screen.getByText('after 4')).toBeInTheDocument();
  });

  it('refuses an id that is not a study', () => {
    mockFetch({});
    renderAt('/console/studies/abc/exports');
    expect(screen.getByRole('alert')).toHaveTextContent(/^Not a study: invalid study id$/);
    expect(screen.queryByText(/after/)).toBeNull();
  });
});
