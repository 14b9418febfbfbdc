import { afterEach, describe, expect, it } from 'vitest';

import { ApiError } from '../api';
import { fakeAuthServer } from '../test/fakeAuthServer';
import { fetchCurrentUser, login, loginFailureMessage, logout } from './auth';

afterEach(() => {
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

describe('login', () => {
  it('fetches the CSRF cookie first, posts JSON with the token and returns the user', async () => {
    const server = fakeAuthServer();

    await expect(login('bob', 'secret-password')).resolves.toEqual({ ok: true, user: server.user });

    expect(server.state.calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /api/v1/auth/csrf/', 'POST /api/v1/auth/login/']);
    const post = server.state.calls[1];
    expect(post?.headers.get('X-CSRFToken')).toBe('token-1');
    expect(post?.headers.get('Content-Type')).toBe('application/json');
    expect(post?.body).toEqual({ username: 'bob', password: 'secret-password' });
    // Django rotated the token: the next unsafe request sends the new cookie.
    await logout();
    expect(server.state.calls.at(-1)?.headers.get('X-CSRFToken')).toBe('token-1-rotated');
    expect(server.state.signedIn).toBe(false);
  });

  it("shows the server's message for wrong credentials and never posts to the admin", async () => {
    const server = fakeAuthServer();
    await expect(login('bob', 'nope')).resolves.toEqual({
      ok: false,
      message: 'Wrong user name or password (or the account is inactive).',
    });
    expect(server.state.calls.some((c) => c.url.startsWith('/admin/'))).toBe(false);
  });

  it('retries once with a fresh cookie when the one it had is stale', async () => {
    const server = fakeAuthServer();
    document.cookie = 'csrftoken=stale-token';
    await expect(login('bob', 'secret-password')).resolves.toMatchObject({ ok: true });
    expect(server.state.calls.map((c) => `${c.method} ${c.url} ${c.headers.get('X-CSRFToken') ?? ''}`.trim())).toEqual([
      'POST /api/v1/auth/login/ stale-token',
      'GET /api/v1/auth/csrf/',
      'POST /api/v1/auth/login/ token-1',
    ]);
  });

  it('says when there were too many attempts', async () => {
    const server = fakeAuthServer();
    server.state.nextLogin = { status: 429, body: { detail: 'Request was throttled. Expected available in 42 seconds.' } };
    await expect(login('bob', 'secret-password')).resolves.toEqual({
      ok: false,
      message: 'Too many sign-in attempts. Request was throttled. Expected available in 42 seconds.',
    });
  });
});

describe('loginFailureMessage', () => {
  it('words field errors, network errors and CSRF refusals', () => {
    expect(loginFailureMessage(new ApiError('HTTP 400', 400, null, { password: ['This field is required.'] }))).toBe(
      'Enter your user name and password.',
    );
    expect(loginFailureMessage(new ApiError('Network error: Failed to fetch', null))).toBe('Network error: Failed to fetch');
    expect(loginFailureMessage(new ApiError('HTTP 403', 403, 'CSRF Failed: CSRF cookie not set.'))).toBe(
      'The server refused the request (CSRF). Reload the page and try again.',
    );
  });
});

describe('fetchCurrentUser', () => {
  it('returns the researcher, or null when signed out; other failures are errors', async () => {
    const server = fakeAuthServer({ signedIn: true });
    await expect(fetchCurrentUser()).resolves.toEqual(server.user);
    server.state.signedIn = false;
    await expect(fetchCurrentUser()).resolves.toBeNull();

    const { mockFetch } = await import('../test/fetchMock');
    mockFetch({ '/api/v1/auth/me/': { status: 503, statusText: 'Service Unavailable', body: { detail: 'down' } } });
    await expect(fetchCurrentUser()).rejects.toThrow('HTTP 503 Service Unavailable: down');
  });
});
