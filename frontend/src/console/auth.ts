/**
 * Researcher sign-in through the API's JSON endpoints (Django session + CSRF):
 *
 * * `GET  /api/v1/auth/csrf/`   sets the `csrftoken` cookie;
 * * `POST /api/v1/auth/login/`  `{username, password}` → 200 `{user}`, 400 `{detail}`, 429 when throttled;
 * * `POST /api/v1/auth/logout/` ends the session;
 * * `GET  /api/v1/auth/me/`     the signed-in researcher, 401/403 when signed out.
 *
 * Any active account is a researcher (staff status is not needed). Unsafe requests send the
 * cookie's value in `X-CSRFToken` (`sendJSON` reads the cookie each time: Django rotates it at
 * sign-in).
 */
import { ApiError, authPath, flattenErrors, getJSON, readCookie, sendJSON } from '../api';
import type { Researcher } from '../api';

/** Makes sure the `csrftoken` cookie is set (the app shell and `me/` set it; this asks explicitly). */
export async function ensureCsrfCookie(force = false): Promise<void> {
  if (!force && readCookie('csrftoken')) return;
  await getJSON<{ csrf_token: string }>(authPath('csrf'));
  if (!readCookie('csrftoken')) throw new ApiError('The server did not set a CSRF cookie; are cookies enabled?', null);
}

/** The signed-in researcher, or `null` when the browser holds no researcher session. */
export async function fetchCurrentUser(signal?: AbortSignal): Promise<Researcher | null> {
  try {
    return await getJSON<Researcher>(authPath('me'), signal ? { signal } : undefined);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
    throw error;
  }
}

export type LoginOutcome = { ok: true; user: Researcher } | { ok: false; message: string };

const isCsrfFailure = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 403 && (error.detail ?? '').startsWith('CSRF Failed');

/** The sign-in form's message for a refused login. */
export function loginFailureMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === null) return error.message; // "Network error: …"
  if (error.status === 429) return `Too many sign-in attempts. ${error.detail ?? 'Please wait a minute and try again.'}`;
  if (error.status === 400) {
    const errors = flattenErrors(error.body);
    const general = errors[''];
    if (general) return general;
    if (errors.username || errors.password) return 'Enter your user name and password.';
  }
  if (isCsrfFailure(error)) return 'The server refused the request (CSRF). Reload the page and try again.';
  return error.detail ?? error.message;
}

export async function login(username: string, password: string): Promise<LoginOutcome> {
  const attempt = async () => (await sendJSON<{ user: Researcher }>('POST', authPath('login'), { username, password })).user;
  try {
    await ensureCsrfCookie();
    try {
      return { ok: true, user: await attempt() };
    } catch (error) {
      // A stale cookie (e.g. rotated by a sign-in in another tab): fetch a fresh one, try once more.
      if (!isCsrfFailure(error)) throw error;
      await ensureCsrfCookie(true);
      return { ok: true, user: await attempt() };
    }
  } catch (error) {
    return { ok: false, message: loginFailureMessage(error) };
  }
}

/** Ends the session; a session that already ended on the server is fine too. */
export async function logout(): Promise<void> {
  try {
    await sendJSON<undefined>('POST', authPath('logout'));
  } catch (error) {
    if (!isCsrfFailure(error)) throw error;
    await ensureCsrfCookie(true);
    await sendJSON<undefined>('POST', authPath('logout'));
  }
}
