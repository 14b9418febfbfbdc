/**
 * The dataset-import endpoints of issue 32 (`/api/v1/datasets/…`) and their payloads, from
 * the generated API types (`schema.d.ts`), with the JSON columns the schema leaves loose
 * (the descriptor, the loader's summary and warnings) spelled out:
 *  - `POST describe/` (multipart `files`) → 200 {@link DescribeResult}, or 400 {@link Refusal};
 *  - `POST import/` (multipart `descriptor`, `files`, optional `title`) → 202 (200: the same
 *    submission's job) `{job}`, or 400 {@link Refusal} with every problem found from the
 *    descriptor and the headers;
 *  - the job is polled at `GET /api/v1/dataset-jobs/{id}/` ({@link DatasetJob}).
 */
import { API_BASE, ApiError, formatHttpError, readCookie } from '../../api';
import type { Complete, Refine } from '../../api';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

export const describePath = (): string => `${API_BASE}/datasets/describe/`;
export const datasetImportPath = (): string => `${API_BASE}/datasets/import/`;
export const datasetJobPath = (id: number): string => `${API_BASE}/dataset-jobs/${id}/`;

/** One column of one file as describe saw it (counts in that file), with the draft's role and why. */
export type ColumnInfo = Schemas['Column'];
/** How much of a file describe read: `complete` false when only its first records. */
export type SampleInfo = Schemas['Sample'];
/** A draft descriptor (the one `qoe-analysis describe` writes), the columns, what is left to settle. */
export type DescribeResult = Refine<Schemas['Describe'], { descriptor: Record<string, unknown> }>;
/** One problem of a dataset: where (file, line, column, value) and the rule it breaks. */
export type Problem = Schemas['Problem'];
/** A refused request: the summary line, the problems (capped) and how many more there are. */
export type Refusal = Schemas['Refusal'];

/** A warning of the loader (`undeclared_columns`, `missing_values`, `derived_sessions`…). */
export interface DatasetWarning {
  code: string;
  message: string;
  where: string;
}

/** The part of the loader's summary (the document's `meta.dataset`) this page shows. */
export interface DatasetSummary {
  n_raters?: number;
  n_sessions?: number;
  n_conditions?: number;
  ratings?: { read: number; kept: number; dropped: number };
}

/** A dataset import job: a CSV import job's fields, the new `study` once done, its problems or the loader's summary. */
export type DatasetJob = Refine<Complete<Schemas['DatasetJob']>, { summary: DatasetSummary | null; warnings: DatasetWarning[] }>;

/** The problems of a refused request (a 400 with `problems`), else `null`. */
export function refusalOf(error: unknown): Refusal | null {
  if (!(error instanceof ApiError) || typeof error.body !== 'object' || error.body === null) return null;
  const body = error.body as Partial<Refusal>;
  if (!Array.isArray(body.problems)) return null;
  return {
    detail: typeof body.detail === 'string' ? body.detail : 'The dataset was refused.',
    problems: body.problems,
    more: typeof body.more === 'number' ? body.more : 0,
  };
}

/**
 * POSTs a multipart form (the browser sets its boundary) with Django's CSRF token, as the
 * API's session authentication requires. Errors throw {@link ApiError} with the parsed body.
 */
export async function postForm<T>(path: string, form: FormData): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const csrf = readCookie('csrftoken');
  if (csrf) headers['X-CSRFToken'] = csrf;
  let response: Response;
  try {
    response = await fetch(path, { method: 'POST', credentials: 'same-origin', headers, body: form });
  } catch (error) {
    throw new ApiError(`Network error: ${error instanceof Error ? error.message : String(error)}`, null);
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const detail =
      typeof body === 'object' && body !== null && typeof (body as { detail?: unknown }).detail === 'string'
        ? (body as { detail: string }).detail
        : null;
    throw new ApiError(formatHttpError(response.status, response.statusText, detail), response.status, detail, body);
  }
  if (body === null) throw new ApiError(`HTTP ${response.status}: response is not valid JSON`, response.status);
  return body as T;
}
