import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { recordFetch } from '../test/fetchMock';
import { exampleStudy } from '../test/fixtures';
import { withQueries } from '../test/queries';
import { CloneStudyForm } from './CloneStudyForm';
import { ImportDesignForm, readDesignFile } from './ImportDesignForm';

function renderAt(ui: React.ReactNode) {
  render(
    withQueries(
      <MemoryRouter initialEntries={['/console']}>
        <Routes>
          <Route path="/console" element={ui} />
          <Route path="/console/studies/:id" element={<p>Opened the new study</p>} />
        </Routes>
      </MemoryRouter>,
    ),
  );
}

const file = (name: string, text: string) => new File([text], name, { type: 'application/json' });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('CloneStudyForm', { timeout: 20_000 }, () => {
  it('clones under the new slug and title, then opens the clone', async () => {
    const calls = recordFetch({ status: 201, body: { ...exampleStudy, id: 7 } });
    renderAt(<CloneStudyForm study={exampleStudy} />);
    expect(screen.getByLabelText('Slug of the clone')).toHaveValue('example-copy');
    fireEvent.change(screen.getByLabelText('Slug of the clone'), { target: { value: 'grid-2026' } });
    fireEvent.change(screen.getByLabelText('Title of the clone'), { target: { value: 'Grid study' } });
    fireEvent.click(screen.getByRole('button', { name: 'Clone study' }));
    expect(await screen.findByText('Opened the new study')).toBeInTheDocument();
    expect(calls[0]).toEqual({ method: 'POST', url: '/api/v1/studies/1/clone/', body: { slug: 'grid-2026', title: 'Grid study' } });
  });

  it('shows a taken slug next to the slug field', async () => {
    recordFetch({ status: 400, body: { slug: ["a study 'example' exists already"] } });
    renderAt(<CloneStudyForm study={exampleStudy} />);
    fireEvent.click(screen.getByRole('button', { name: 'Clone study' }));
    await waitFor(() => {
      expect(screen.getByLabelText('Slug of the clone')).toHaveAccessibleDescription(/exists already/);
    });
    expect(screen.getByLabelText('Slug of the clone')).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('ImportDesignForm', { timeout: 20_000 }, () => {
  const design = JSON.stringify({ format: 'qoelab.study/v1', slug: 'imported', title: 'Imported', games: [], scenarios: [] });

  it('posts the document and opens the new study', async () => {
    const calls = recordFetch({ status: 201, body: { ...exampleStudy, id: 9 } });
    renderAt(<ImportDesignForm />);
    fireEvent.change(screen.getByLabelText('Study design (JSON file)'), { target: { files: [file('design.json', design)] } });
    fireEvent.click(screen.getByRole('button', { name: 'Import design' }));
    expect(await screen.findByText('Opened the new study')).toBeInTheDocument();
    expect(calls[0]?.url).toBe('/api/v1/studies/import-design/');
    expect(calls[0]?.body).toMatchObject({ format: 'qoelab.study/v1', slug: 'imported' });
  });

  it('explains the server refusal in plain words', async () => {
    recordFetch({ status: 400, body: { detail: "scenarios[2].downstream.loss_pct: 150 is greater than the maximum of 100" } });
    renderAt(<ImportDesignForm />);
    fireEvent.change(screen.getByLabelText('Study design (JSON file)'), { target: { files: [file('design.json', design)] } });
    fireEvent.click(screen.getByRole('button', { name: 'Import design' }));
    await waitFor(() => {
      expect(screen.getByLabelText('Study design (JSON file)')).toHaveAccessibleDescription(
        /The design was not imported — scenarios\[2\]\.downstream\.loss_pct: 150 is greater than the maximum of 100/,
      );
    });
  });

  it('refuses a file that is not JSON or not a study design before any request', async () => {
    const calls = recordFetch({ status: 201, body: {} });
    await expect(readDesignFile(file('x.json', '{"format": '))).rejects.toThrow(/x\.json is not valid JSON/);
    await expect(readDesignFile(file('x.json', '[1]'))).rejects.toThrow('x.json does not hold a study design (a JSON object).');
    await expect(readDesignFile(file('x.json', '{"format": "qoe-policy/v1"}'))).rejects.toThrow(
      'x.json is not a study design: its "format" is "qoe-policy/v1", expected "qoelab.study/v1".',
    );
    renderAt(<ImportDesignForm />);
    fireEvent.click(screen.getByRole('button', { name: 'Import design' }));
    expect(screen.getByLabelText('Study design (JSON file)')).toHaveAccessibleDescription(/Choose a JSON file first/);
    fireEvent.change(screen.getByLabelText('Study design (JSON file)'), { target: { files: [file('broken.json', 'not json')] } });
    fireEvent.click(screen.getByRole('button', { name: 'Import design' }));
    await waitFor(() => {
      expect(screen.getByLabelText('Study design (JSON file)')).toHaveAccessibleDescription(/broken\.json is not valid JSON/);
    });
    expect(calls).toEqual([]);
  });
});
