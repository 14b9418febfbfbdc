/** Minimal typed fetch client for the QoE Lab API. */

/** Thrown for any failed API call: network error, non-2xx status or invalid JSON. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    message: string,
    /** HTTP status, or `null` when no response was received. */
    readonly status: number | null,
    /** The API's own message (`detail`), when it sent one. */
    readonly detail: string | null = null,
    /** The parsed JSON error body (DRF validation errors: `{field: [messages]}`). */
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

const MAX_TEXT_DETAIL = 200;

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Extracts a human-readable message from an error response body. */
function detailFromBody(body: string): string | null {
  const text = body.trim();
  if (text === '') return null;
  const parsed = parseJSON(text);
  if (parsed === undefined) {
    // Not JSON (e.g. a proxy's HTML error page): show a short plain-text excerpt
    // unless it is markup.
    if (text.startsWith('<')) return null;
    return text.length > MAX_TEXT_DETAIL ? `${text.slice(0, MAX_TEXT_DETAIL)}…` : text;
  }
  if (typeof parsed === 'object' && parsed !== null) {
    if ('detail' in parsed) {
      const { detail } = parsed;
      if (typeof detail === 'string') return detail;
      return JSON.stringify(detail);
    }
    // A DRF validation error: summarise as "field: message; field: message".
    const flat = flattenErrors(parsed);
    const entries = Object.entries(flat);
    if (entries.length > 0) return entries.map(([k, v]) => (k === '' ? v : `${k}: ${v}`)).join('; ');
  }
  return null;
}

/**
 * Flattens a DRF error body into `{ "field.sub": "message" }`; `non_field_errors` and
 * `detail` become the key `""`. The session endpoints' `{detail, field}` maps onto `field`.
 */
export function flattenErrors(body: unknown, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  if (body === null || body === undefined) return out;
  if (typeof body === 'string') {
    out[prefix] = body;
    return out;
  }
  if (Array.isArray(body)) {
    const strings = body.filter((x): x is string => typeof x === 'string');
    if (strings.length > 0) out[prefix] = strings.join(' ');
    body.forEach((item, index) => {
      if (typeof item === 'object' && item !== null) {
        Object.assign(out, flattenErrors(item, prefix ? `${prefix}.${index}` : String(index)));
      }
    });
    return out;
  }
  if (typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (typeof record.detail === 'string') {
      const field = typeof record.field === 'string' ? record.field : '';
      out[prefix ? `${prefix}${field ? `.${field}` : ''}` : field] = record.detail;
      return out;
    }
    for (const [key, value] of Object.entries(record)) {
      const name = key === 'non_field_errors' ? prefix : prefix ? `${prefix}.${key}` : key;
      Object.assign(out, flattenErrors(value, name));
    }
  }
  return out;
}

/** The field errors of an error thrown by the client (empty for other errors). */
export function fieldErrors(error: unknown): Record<string, string> {
  if (error instanceof ApiError && error.body !== null) return flattenErrors(error.body);
  return {};
}

/**
 * Formats a failed response as `HTTP 503 Service Unavailable: <detail>`.
 * Exported for tests and for callers that build their own messages.
 */
export function formatHttpError(status: number, statusText: string, detail: string | null): string {
  const head = statusText ? `HTTP ${status} ${statusText}` : `HTTP ${status}`;
  return detail ? `${head}: ${detail}` : head;
}

/** The value of a cookie (e.g. Django's `csrftoken`), or `null`. */
export function readCookie(name: string): string | null {
  if (typeof document === 'undefined') return null;
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

async function request(path: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ApiError(`Network error: ${reason}`, null);
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    const detail = detailFromBody(text);
    const body = parseJSON(text.trim()) ?? null;
    throw new ApiError(formatHttpError(response.status, response.statusText, detail), response.status, detail, body);
  }
  return response;
}

async function readJSON<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T;
  try {
    return (await response.json()) as T;
  } catch {
    throw new ApiError(`HTTP ${response.status}: response is not valid JSON`, response.status);
  }
}

/**
 * GETs `path` (e.g. `/api/v1/studies/`) and returns the parsed JSON body.
 *
 * The type parameter is trusted, not validated: the API contract is the source of truth.
 * Throws {@link ApiError} with a message that includes the HTTP status and the API's
 * `detail` message when the request fails.
 */
export async function getJSON<T>(path: string, init?: RequestOptions): Promise<T> {
  const response = await request(path, {
    headers: { Accept: 'application/json', ...init?.headers },
    signal: init?.signal ?? null,
  });
  return readJSON<T>(response);
}

/** GETs a text resource (e.g. a CSV export). */
export async function getText(path: string, init?: RequestOptions): Promise<string> {
  const response = await request(path, { headers: { ...init?.headers }, signal: init?.signal ?? null });
  return response.text();
}

/**
 * Sends `body` as JSON with an unsafe method. Django's CSRF token (cookie `csrftoken`)
 * goes in `X-CSRFToken`, as the session authentication of the API requires.
 */
export async function sendJSON<T>(
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  init?: RequestOptions,
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...init?.headers };
  const csrf = readCookie('csrftoken');
  if (csrf) headers['X-CSRFToken'] = csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await request(path, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
    signal: init?.signal ?? null,
  });
  return readJSON<T>(response);
}

/** POSTs raw text (e.g. a CSV file) with the given content type. */
export async function sendText<T>(path: string, text: string, contentType: string): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', 'Content-Type': contentType };
  const csrf = readCookie('csrftoken');
  if (csrf) headers['X-CSRFToken'] = csrf;
  const response = await request(path, { method: 'POST', headers, body: text });
  return readJSON<T>(response);
}
