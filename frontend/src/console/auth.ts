/**
 * Researcher sign-in through Django's session login.
 *
 * The API has no JSON login endpoint: the console posts the credentials to Django's
 * admin login form (`/admin/login/`, CSRF-protected), exactly as a browser would, and
 * then uses the session cookie for the API. Django answers a successful login with a
 * redirect (seen by `fetch` as an opaque redirect) and a failed one with the form again.
 * The account therefore needs "staff status" (the demo account has it).
 */
import { ApiError, getJSON, readCookie, stationsPath } from '../api';

const USER_KEY = 'qoelab:researcher';

async function ensureCsrfCookie(): Promise<string> {
  let token = readCookie('csrftoken');
  if (!token) {
    // The login form sets the cookie when it renders.
    await fetch('/admin/login/', { credentials: 'same-origin' });
    token = readCookie('csrftoken');
  }
  if (!token) throw new Error('The server did not set a CSRF cookie; is it QoE Lab?');
  return token;
}

export type LoginOutcome = { ok: true } | { ok: false; message: string };

export async function login(username: string, password: string): Promise<LoginOutcome> {
  let token: string;
  try {
    token = await ensureCsrfCookie();
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const form = new URLSearchParams({ username, password, next: '/console', csrfmiddlewaretoken: token });
  let response: Response;
  try {
    response = await fetch('/admin/login/', {
      method: 'POST',
      body: form,
      credentials: 'same-origin',
      redirect: 'manual',
      headers: { 'X-CSRFToken': token },
    });
  } catch (error) {
    return { ok: false, message: `Network error: ${error instanceof Error ? error.message : String(error)}` };
  }
  const redirected = response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
  if (!redirected) {
    if (response.status === 403) return { ok: false, message: 'The server refused the request (CSRF). Reload the page and try again.' };
    return {
      ok: false,
      message: 'Wrong user name or password, or the account is not a researcher (staff) account.',
    };
  }
  if (!(await isSignedIn())) {
    return { ok: false, message: 'Signed in, but the API does not accept the session. Is the account active?' };
  }
  sessionStorage.setItem(USER_KEY, username);
  return { ok: true };
}

export async function logout(): Promise<void> {
  const token = readCookie('csrftoken') ?? '';
  await fetch('/admin/logout/', {
    method: 'POST',
    credentials: 'same-origin',
    redirect: 'manual',
    headers: { 'X-CSRFToken': token },
    body: new URLSearchParams({ csrfmiddlewaretoken: token }),
  }).catch(() => undefined);
  sessionStorage.removeItem(USER_KEY);
}

/** Whether the browser holds a researcher session (probed with a researcher-only endpoint). */
export async function isSignedIn(): Promise<boolean> {
  try {
    await getJSON(stationsPath());
    return true;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return false;
    throw error;
  }
}

export function signedInName(): string | null {
  return sessionStorage.getItem(USER_KEY);
}
