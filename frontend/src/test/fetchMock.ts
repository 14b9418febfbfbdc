import { vi } from 'vitest';

export type Route = { status?: number; statusText?: string; body: unknown } | Error;

/**
 * Replaces global fetch with a stub answering from `routes` (keyed by path).
 * Unknown paths answer 404 so that a wrong URL fails the test loudly.
 */
export function mockFetch(routes: Record<string, Route>) {
  const fetchMock = vi.fn((input: RequestInfo | URL): Promise<Response> => {
    const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
    const route = routes[path];
    if (route === undefined) {
      return Promise.resolve(jsonResponse({ detail: `No mock for ${path}` }, 404, 'Not Found'));
    }
    if (route instanceof Error) return Promise.reject(route);
    return Promise.resolve(jsonResponse(route.body, route.status ?? 200, route.statusText ?? 'OK'));
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

export function jsonResponse(body: unknown, status = 200, statusText = 'OK'): Response {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Response(text, { status, statusText, headers: { 'Content-Type': 'application/json' } });
}

/** One request a test's fetch stub received (the JSON body parsed, else null). */
export interface RecordedCall {
  method: string;
  url: string;
  body: unknown;
}

/**
 * Replaces global fetch with a stub that gives every request the same answer and records
 * the requests (method, path, JSON body) in the returned array.
 */
export function recordFetch(answer: { status: number; body: unknown }): RecordedCall[] {
  const calls: RecordedCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null;
      calls.push({ method: init?.method ?? 'GET', url, body });
      const statusText = answer.status >= 400 ? 'Bad Request' : 'OK';
      return Promise.resolve(jsonResponse(answer.body, answer.status, statusText));
    }),
  );
  return calls;
}
