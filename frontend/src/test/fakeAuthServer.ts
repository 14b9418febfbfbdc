import { vi } from 'vitest';

import { jsonResponse } from './fetchMock';

export interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

function clearCookie(name: string) {
  document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

/**
 * A fake of the API's sign-in endpoints with Django's rules: `csrf/` and `me/` set the
 * `csrftoken` cookie, unsafe requests need it in `X-CSRFToken`, a sign-in rotates it.
 * `routes` answers everything else (GET by path).
 */
export function fakeAuthServer(options: { password?: string; routes?: Record<string, unknown>; signedIn?: boolean } = {}) {
  const state = {
    signedIn: options.signedIn ?? false,
    token: 'token-1',
    calls: [] as Call[],
    /** Answer the next login with this status and body instead (e.g. 429). */
    nextLogin: null as { status: number; body: unknown } | null,
  };
  clearCookie('csrftoken');
  const user = { id: 3, username: 'bob', is_staff: false };
  const setToken = (token: string) => {
    state.token = token;
    document.cookie = `csrftoken=${token}`;
  };
  const fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
    const method = init?.method ?? 'GET';
    const headers = new Headers(init?.headers);
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    state.calls.push({ url, method, headers, body });
    const csrfOk = headers.get('X-CSRFToken') === state.token && document.cookie.includes(`csrftoken=${state.token}`);
    const csrfFailed = () => Promise.resolve(jsonResponse({ detail: 'CSRF Failed: CSRF token incorrect.' }, 403, 'Forbidden'));
    if (url === '/api/v1/auth/csrf/') {
      setToken(state.token);
      return Promise.resolve(jsonResponse({ csrf_token: state.token }));
    }
    if (url === '/api/v1/auth/me/') {
      setToken(state.token);
      return Promise.resolve(
        state.signedIn
          ? jsonResponse(user)
          : jsonResponse({ detail: 'Authentication credentials were not provided.' }, 403, 'Forbidden'),
      );
    }
    if (url === '/api/v1/auth/login/' && method === 'POST') {
      if (!csrfOk) return csrfFailed();
      if (state.nextLogin) {
        const answer = state.nextLogin;
        state.nextLogin = null;
        return Promise.resolve(jsonResponse(answer.body, answer.status));
      }
      const given = body as { username: string; password: string };
      if (given.username !== 'bob' || given.password !== (options.password ?? 'secret-password')) {
        return Promise.resolve(jsonResponse({ detail: 'Wrong user name or password (or the account is inactive).' }, 400, 'Bad Request'));
      }
      state.signedIn = true;
      setToken(`${state.token}-rotated`);
      return Promise.resolve(jsonResponse({ user }));
    }
    if (url === '/api/v1/auth/logout/' && method === 'POST') {
      if (state.signedIn && !csrfOk) return csrfFailed();
      state.signedIn = false;
      return Promise.resolve(new Response(null, { status: 204 }));
    }
    if (method === 'GET' && options.routes && url in options.routes) {
      if (!state.signedIn) return Promise.resolve(jsonResponse({ detail: 'Authentication credentials were not provided.' }, 403));
      return Promise.resolve(jsonResponse(options.routes[url]));
    }
    return Promise.resolve(jsonResponse({ detail: `No fake for ${method} ${url}` }, 404, 'Not Found'));
  });
  vi.stubGlobal('fetch', fetchMock);
  return { state, fetchMock, user, setToken };
}
