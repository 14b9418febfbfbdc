import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { App } from '../../App';
import { ApiError } from '../../api';
import { fakeAuthServer } from '../../test/fakeAuthServer';
import { jsonResponse } from '../../test/fetchMock';
import { FACTOR_CATALOG } from '../studyEditor/factorCatalog.fixture';
import { postForm, refusalOf } from './api';

afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

describe('postForm', () => {
  it('sends the form with the CSRF token and reads a refusal’s problems', async () => {
    document.cookie = 'csrftoken=abc';
    const problem = { file: 'a.csv', line: 3, column: 'QoE', value: '9', rule: 'a rating is from 0 to 6' };
    const sent: RequestInit[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((_path: string, init: RequestInit) => {
        sent.push(init);
        return Promise.resolve(jsonResponse({ detail: 'invalid dataset: 1 problem', problems: [problem], more: 0 }, 400, 'Bad Request'));
      }),
    );
    const form = new FormData();
    form.append('title', 'x');
    const error: unknown = await postForm('/api/v1/datasets/import/', form).catch((caught: unknown) => caught);
    const init = sent[0];
    expect(new Headers(init?.headers).get('X-CSRFToken')).toBe('abc');
    expect(init?.body).toBe(form);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('HTTP 400 Bad Request: invalid dataset: 1 problem');
    expect(refusalOf(error)).toEqual({ detail: 'invalid dataset: 1 problem', problems: [problem], more: 0 });
  });

  it('has no refusal for an error without problems', () => {
    expect(refusalOf(new ApiError('HTTP 403', 403, 'no', { detail: 'no' }))).toBeNull();
    expect(refusalOf(new Error('offline'))).toBeNull();
  });
});

describe('the route', () => {
  it('opens the dataset import from the studies list', async () => {
    fakeAuthServer({ signedIn: true, routes: { '/api/v1/studies/': [], '/api/v1/factors/': FACTOR_CATALOG } });
    render(
      <MemoryRouter initialEntries={['/console']}>
        <App />
      </MemoryRouter>,
    );
    fireEvent.click(await screen.findByRole('link', { name: 'Import a dataset' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Import a dataset' })).toBeInTheDocument();
    expect(screen.getByLabelText('Data files (CSV)')).toBeInTheDocument();
  });
});
