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
  ) {
    super(message);
  }
}

const MAX_TEXT_DETAIL = 200;

/** Extracts a human-readable message from an error response body. */
function detailFromBody(body: string): string | null {
  const text = body.trim();
  if (text === '') return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'detail' in parsed) {
      const { detail } = parsed;
      if (typeof detail === 'string') return detail;
      return JSON.stringify(detail);
    }
    return null;
  } catch {
    // Not JSON (e.g. a proxy's HTML error page): show a short plain-text excerpt
    // unless it is markup.
    if (text.startsWith('<')) return null;
    return text.length > MAX_TEXT_DETAIL ? `${text.slice(0, MAX_TEXT_DETAIL)}…` : text;
  }
}

/**
 * Formats a failed response as `HTTP 503 Service Unavailable: <detail>`.
 * Exported for tests and for callers that build their own messages.
 */
export function formatHttpError(status: number, statusText: string, detail: string | null): string {
  const head = statusText ? `HTTP ${status} ${statusText}` : `HTTP ${status}`;
  return detail ? `${head}: ${detail}` : head;
}

/**
 * GETs `path` (e.g. `/api/v1/studies/`) and returns the parsed JSON body.
 *
 * The type parameter is trusted, not validated: the API contract is the source of truth.
 * Throws {@link ApiError} with a message that includes the HTTP status and the API's
 * `detail` message when the request fails.
 */
export async function getJSON<T>(path: string, init?: { signal?: AbortSignal }): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      headers: { Accept: 'application/json' },
      credentials: 'same-origin',
      signal: init?.signal ?? null,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ApiError(`Network error: ${reason}`, null);
  }

  if (!response.ok) {
    const body = await response.text().catch(() => '');
    const detail = detailFromBody(body);
    throw new ApiError(formatHttpError(response.status, response.statusText, detail), response.status, detail);
  }

  try {
    return (await response.json()) as T;
  } catch {
    throw new ApiError(`HTTP ${response.status}: response is not valid JSON`, response.status);
  }
}
