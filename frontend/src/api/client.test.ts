import { describe, expect, it } from 'vitest';

import { mockFetch } from '../test/fetchMock';
import { ApiError, formatHttpError, getJSON } from './client';

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the promise to reject');
}

describe('getJSON', () => {
  it('returns the parsed body and asks for JSON', async () => {
    const fetchMock = mockFetch({ '/api/v1/studies/': { body: [{ id: 1 }] } });

    await expect(getJSON<{ id: number }[]>('/api/v1/studies/')).resolves.toEqual([{ id: 1 }]);

    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(new Headers(init.headers).get('Accept')).toBe('application/json');
  });

  it('puts the HTTP status and the API detail in the message', async () => {
    mockFetch({ '/x': { status: 503, statusText: 'Service Unavailable', body: { detail: 'Database unavailable' } } });

    const error = await caught(getJSON('/x'));

    expect(error.message).toBe('HTTP 503 Service Unavailable: Database unavailable');
    expect(error.status).toBe(503);
    expect(error.detail).toBe('Database unavailable');
  });

  it('reports the status alone when the error body has no detail', async () => {
    mockFetch({ '/x': { status: 404, statusText: 'Not Found', body: '' } });

    const error = await caught(getJSON('/x'));

    expect(error.message).toBe('HTTP 404 Not Found');
    expect(error.detail).toBeNull();
  });

  it('shows a short plain-text body but not an HTML error page', async () => {
    mockFetch({
      '/text': { status: 502, statusText: 'Bad Gateway', body: 'upstream connect error' },
      '/html': { status: 500, statusText: 'Internal Server Error', body: '<!doctype html><h1>Server Error</h1>' },
    });

    expect((await caught(getJSON('/text'))).message).toBe('HTTP 502 Bad Gateway: upstream connect error');
    expect((await caught(getJSON('/html'))).message).toBe('HTTP 500 Internal Server Error');
  });

  it('wraps network failures with a null status', async () => {
    mockFetch({ '/x': new TypeError('Failed to fetch') });

    const error = await caught(getJSON('/x'));

    expect(error.message).toBe('Network error: Failed to fetch');
    expect(error.status).toBeNull();
  });

  it('rejects a 200 response whose body is not JSON', async () => {
    mockFetch({ '/x': { body: 'not json' } });

    const error = await caught(getJSON('/x'));

    expect(error.message).toBe('HTTP 200: response is not valid JSON');
  });
});

describe('formatHttpError', () => {
  it('formats with and without status text and detail', () => {
    expect(formatHttpError(400, 'Bad Request', 'Invalid id')).toBe('HTTP 400 Bad Request: Invalid id');
    expect(formatHttpError(503, '', 'Down')).toBe('HTTP 503: Down');
    expect(formatHttpError(500, '', null)).toBe('HTTP 500');
  });
});

describe('flattenErrors and fieldErrors', () => {
  it('flattens DRF validation errors to dotted field names', async () => {
    const { flattenErrors } = await import('./client');
    expect(
      flattenErrors({
        code: ['A scenario code is 1–8 capital letters.'],
        upstream: { delay_ms: ['Ensure this value is less than or equal to 10000.'] },
        questionnaire: [{}, { key: ['This field is required.'] }],
        non_field_errors: ['Bad.'],
      }),
    ).toEqual({
      code: 'A scenario code is 1–8 capital letters.',
      'upstream.delay_ms': 'Ensure this value is less than or equal to 10000.',
      'questionnaire.1.key': 'This field is required.',
      '': 'Bad.',
    });
  });

  it("maps a session endpoint's {detail, field} onto the field", async () => {
    const { flattenErrors } = await import('./client');
    expect(flattenErrors({ detail: 'station busy', field: 'station' })).toEqual({ station: 'station busy' });
    expect(flattenErrors({ detail: 'nope', field: null })).toEqual({ '': 'nope' });
  });
});

describe('sendJSON', () => {
  it('sends JSON with the CSRF token from the cookie and exposes the error body', async () => {
    const { fieldErrors, sendJSON } = await import('./client');
    document.cookie = 'csrftoken=abc123';
    const fetchMock = mockFetch({ '/api/v1/studies/1/': { status: 400, statusText: 'Bad Request', body: { seconds_per_scenario: ['Too small.'] } } });
    const error = await caught(sendJSON('PATCH', '/api/v1/studies/1/', { seconds_per_scenario: 2 }));
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    const headers = new Headers(init.headers);
    expect(init.method).toBe('PATCH');
    expect(headers.get('X-CSRFToken')).toBe('abc123');
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(init.body).toBe('{"seconds_per_scenario":2}');
    expect(fieldErrors(error)).toEqual({ seconds_per_scenario: 'Too small.' });
    expect(error.message).toBe('HTTP 400 Bad Request: seconds_per_scenario: Too small.');
  });
});
