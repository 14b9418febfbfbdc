import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { jsonResponse } from '../../test/fetchMock';
import { withQueries } from '../../test/queries';
import { FACTOR_CATALOG } from '../studyEditor/factorCatalog.fixture';
import type { DatasetJob, Problem } from './api';
import DatasetImportPage from './DatasetImportPage';
import { describeResult, GIVEN, HEADERS } from './p809.fixture';

const job = (changes: Partial<DatasetJob>): DatasetJob => ({
  id: 12,
  kind: 'dataset',
  study: null,
  title: '',
  file_name: 'wired_a.csv, wired_b.csv, mobile.csv',
  file_sha256: 'ab'.repeat(32),
  file_bytes: 90_000,
  rows_total: 0,
  rows_done: 0,
  state: 'queued',
  progress: 0,
  stage: '',
  sessions: null,
  ratings: null,
  participants_created: null,
  scenarios: null,
  error: '',
  error_line: null,
  error_column: '',
  problems: [],
  more: 0,
  summary: null,
  warnings: [],
  attempts: 0,
  worker: '',
  created_at: '2026-11-28T18:00:00Z',
  started_at: null,
  finished_at: null,
  ...changes,
});

interface Sent {
  method: string;
  url: string;
  form: FormData | null;
}

interface Answer {
  status: number;
  body: unknown;
}

/** The API: describe answers with `described`, import with `imported`, each job GET with the next of `polls`. */
function serve(imported: Answer, polls: DatasetJob[] = [], described: Answer = { status: 200, body: describeResult() }) {
  const sent: Sent[] = [];
  let next = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      const method = init?.method ?? 'GET';
      sent.push({ method, url, form: init?.body instanceof FormData ? init.body : null });
      if (url === '/api/v1/factors/') return Promise.resolve(jsonResponse(FACTOR_CATALOG));
      if (url === '/api/v1/datasets/describe/') return Promise.resolve(jsonResponse(described.body, described.status));
      if (url === '/api/v1/datasets/import/') {
        return Promise.resolve(jsonResponse(imported.body, imported.status, imported.status === 400 ? 'Bad Request' : 'Accepted'));
      }
      if (url === '/api/v1/dataset-jobs/12/') {
        const answer = polls[Math.min(next, polls.length - 1)];
        next += 1;
        return Promise.resolve(jsonResponse(answer));
      }
      return Promise.resolve(jsonResponse({ detail: `No mock for ${url}` }, 404, 'Not Found'));
    }),
  );
  return sent;
}

const csvFiles = () => Object.keys(HEADERS).map((name) => new File([`${HEADERS[name]?.join(',') ?? ''}\n`], name, { type: 'text/csv' }));

async function readColumns(descriptor?: File) {
  render(withQueries(<MemoryRouter><DatasetImportPage /></MemoryRouter>));
  fireEvent.change(screen.getByLabelText('Data files (CSV)'), { target: { files: csvFiles() } });
  if (descriptor) fireEvent.change(screen.getByLabelText('Descriptor (optional, JSON or YAML)'), { target: { files: [descriptor] } });
  fireEvent.click(screen.getByRole('button', { name: 'Read the columns' }));
  await screen.findByRole('table', { name: 'Column mapping' });
}

interface Written {
  resources: Record<string, unknown>[];
  schema: { fields: Record<string, unknown>[] };
}

/** The descriptor the download link holds. */
function downloaded(): Written {
  const href = screen.getByRole('link', { name: 'Download descriptor' }).getAttribute('href') ?? '';
  return JSON.parse(decodeURIComponent(href.replace('data:application/json;charset=utf-8,', ''))) as Written;
}

/** The descriptor a request sent (a JSON text). */
function sentDescriptor(request: Sent | undefined): Record<string, unknown> {
  const value = request?.form?.get('descriptor');
  if (typeof value !== 'string') throw new Error('no descriptor text sent');
  return JSON.parse(value) as Record<string, unknown>;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('DatasetImportPage', { timeout: 20_000 }, () => {
  it('maps the described columns, writes the descriptor and follows the import to the new study', async () => {
    const sent = serve({ status: 202, body: { job: job({}) } }, [
      job({ state: 'running', progress: 0.2, stage: 'reading the files' }),
      job({ state: 'running', progress: 0.6, stage: 'writing', rows_total: 1823, rows_done: 1823 }),
      job({
        state: 'succeeded',
        progress: 1,
        study: 31,
        summary: { n_raters: 48, n_sessions: 172, n_conditions: 1572, ratings: { read: 1823, kept: 1797, dropped: 26 } },
        warnings: [{ code: 'undeclared_columns', message: 'columns not declared, not analysed: Comment', where: 'meta.dataset' }],
      }),
    ]);
    await readColumns();
    expect(screen.getByTestId('describe-notes')).toHaveTextContent("mobile.csv has no column 'CPU [%]'");
    expect(screen.getByTestId('describe-notes')).toHaveTextContent('The counts of wired_a.csv are of its first 500 rows');
    expect(screen.getByLabelText('Role of QoE')).toHaveValue('rating');
    expect(screen.getByLabelText('Scale maximum of QoE')).toHaveValue('6');
    expect(screen.getByLabelText('Unit of DL loss')).toHaveValue('fraction');
    fireEvent.change(screen.getByLabelText('Role of Round'), { target: { value: 'covariate' } });
    fireEvent.change(screen.getByLabelText('Role of Comment'), { target: { value: '' } });
    expect(within(screen.getByRole('table', { name: 'Column mapping' })).getByText(/named in the warning of undeclared columns/)).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Acceptable from of QoE'), { target: { value: '4' } });
    fireEvent.change(screen.getByLabelText('Namespace of wired_a.csv'), { target: { value: 'wired-a' } });

    const descriptor = downloaded();
    const fields: Record<string, Record<string, unknown> | undefined> = Object.fromEntries(
      descriptor.schema.fields.map((field) => [String(field.name), field]),
    );
    expect(fields.Round).toMatchObject({ role: 'covariate' });
    expect(fields.Comment).toBeUndefined();
    expect(fields.QoE).toMatchObject({ role: 'rating', acceptable_from: 4, scale: { min: 0, max: 6 } });
    expect(descriptor.resources[0]).toMatchObject({ path: 'wired_a.csv', namespace: 'wired-a' });

    fireEvent.change(screen.getByLabelText('Study title'), { target: { value: 'P.809 cloud gaming' } });
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    expect(await screen.findByText(/Importing — reading the files \(20 %\)/)).toBeInTheDocument();
    expect(await screen.findByText(/storing the study \(1823 rows\) \(60 %\)/, {}, { timeout: 5000 })).toBeInTheDocument();
    const imported = await screen.findByTestId('dataset-imported', {}, { timeout: 5000 });
    expect(imported).toHaveTextContent('1797 ratings kept of 1823 (26 without a rating dropped), 48 raters, 172 sessions, 1572 conditions.');
    expect(imported).toHaveTextContent('columns not declared, not analysed: Comment');
    expect(screen.getByRole('link', { name: 'Open its results' })).toHaveAttribute('href', '/console/studies/31/results');

    const post = sent.find((request) => request.url === '/api/v1/datasets/import/');
    expect(post?.method).toBe('POST');
    expect(post?.form?.get('title')).toBe('P.809 cloud gaming');
    expect((post?.form?.getAll('files') as File[]).map((file) => file.name)).toEqual(['wired_a.csv', 'wired_b.csv', 'mobile.csv']);
    expect(sentDescriptor(post)).toEqual(descriptor);
    expect(sent.find((request) => request.url === '/api/v1/datasets/describe/')?.form?.getAll('files')).toHaveLength(3);
  });

  it('shows the roles of a given descriptor and sends it back unchanged', async () => {
    const sent = serve({ status: 202, body: { job: job({ state: 'running' }) } }, [job({ state: 'running' })]);
    const given = GIVEN();
    await readColumns(new File([JSON.stringify(given)], 'descriptor.json', { type: 'application/json' }));
    expect(screen.getByLabelText('Role of Play again')).toHaveValue('ignore');
    expect(screen.getByLabelText('Role of Round')).toHaveValue('');
    expect(screen.getByLabelText('testbed of mobile.csv')).toHaveValue('mobile');
    expect(screen.getByLabelText('Study title')).toHaveValue('P.809-like randomised cloud-gaming dataset (synthetic)');
    expect(screen.getByTestId('describe-notes')).not.toHaveTextContent('Left to settle'); // the draft's notes, not the given descriptor's
    expect(screen.queryByTestId('game-paces')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    await screen.findByTestId('dataset-job');
    const post = sent.find((request) => request.url === '/api/v1/datasets/import/');
    const written = sentDescriptor(post);
    expect(written.resources).toEqual(given.resources);
    expect(written.game_paces).toEqual(given.game_paces);
  });

  it('lists every problem of a refused import at once', async () => {
    const problems: Problem[] = [
      { file: 'descriptor.json', line: null, column: 'DL delay [ms]', value: 'furlong', rule: 'unit of delay_ms is one of: ms, s, us' },
      { file: 'wired_a.csv', line: 1, column: 'Ping [ms]', value: null, rule: 'the descriptor declares this column but the file has none' },
    ];
    serve({ status: 400, body: { detail: 'invalid dataset: 5 problems', problems, more: 3 } });
    await readColumns();
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    const list = await screen.findByTestId('dataset-problems');
    expect(list).toHaveTextContent('Import refused: 5 problems — nothing was stored.');
    const rows = within(list).getAllByTestId('dataset-problem');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('descriptor.jsonDL delay [ms]furlongunit of delay_ms is one of: ms, s, us');
    expect(rows[1]).toHaveTextContent('wired_a.csv1Ping [ms]');
    expect(within(list).getByTestId('dataset-problems-more')).toHaveTextContent('… and 3 more problems.');
  });

  it('shows the problems of a failed job', async () => {
    serve({ status: 202, body: { job: job({}) } }, [
      job({
        state: 'failed',
        error: 'invalid dataset: 1 problem',
        problems: [{ file: 'wired_a.csv', line: 5, column: 'QoE', value: '7', rule: 'a rating of item quality is an integer from 0 to 6' }],
      }),
    ]);
    await readColumns();
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    const list = await screen.findByTestId('dataset-problems', {}, { timeout: 5000 });
    expect(list).toHaveTextContent('Import failed: 1 problem — nothing was stored.');
    expect(within(list).getByTestId('dataset-problem')).toHaveTextContent('wired_a.csv5QoE7a rating of item quality is an integer from 0 to 6');
  });

  it('lists the problems of files describe cannot read', async () => {
    const problems: Problem[] = [{ file: 'mobile.csv', line: 1, column: null, value: null, rule: 'the file is not UTF-8 text' }];
    serve({ status: 202, body: {} }, [], { status: 400, body: { detail: 'mobile.csv: the file is not UTF-8 text', problems, more: 0 } });
    render(withQueries(<MemoryRouter><DatasetImportPage /></MemoryRouter>));
    fireEvent.change(screen.getByLabelText('Data files (CSV)'), { target: { files: csvFiles() } });
    fireEvent.click(screen.getByRole('button', { name: 'Read the columns' }));
    const list = await screen.findByTestId('dataset-problems');
    expect(list).toHaveTextContent('The files could not be read: 1 problem — nothing was stored.');
    expect(within(list).getByTestId('dataset-problem')).toHaveTextContent('mobile.csv1the file is not UTF-8 text');
    expect(screen.queryByRole('table', { name: 'Column mapping' })).not.toBeInTheDocument();
  });

  it('refuses a descriptor that is not JSON before sending anything', async () => {
    const sent = serve({ status: 202, body: {} });
    render(withQueries(<MemoryRouter><DatasetImportPage /></MemoryRouter>));
    fireEvent.change(screen.getByLabelText('Data files (CSV)'), { target: { files: csvFiles() } });
    fireEvent.change(screen.getByLabelText('Descriptor (optional, JSON or YAML)'), { target: { files: [new File(['{"resources": ['], 'descriptor.json')] } });
    fireEvent.click(screen.getByRole('button', { name: 'Read the columns' }));
    expect(await screen.findByText(/descriptor.json is not valid JSON/)).toBeInTheDocument();
    expect(sent).toHaveLength(0);
  });

  it('sends a YAML descriptor as it is', async () => {
    const sent = serve({ status: 202, body: { job: job({ state: 'running' }) } }, [job({ state: 'running' })]);
    render(withQueries(<MemoryRouter><DatasetImportPage /></MemoryRouter>));
    fireEvent.change(screen.getByLabelText('Data files (CSV)'), { target: { files: csvFiles() } });
    const yaml = new File(['profile: qoe-lab-dataset\n'], 'descriptor.yaml');
    fireEvent.change(screen.getByLabelText('Descriptor (optional, JSON or YAML)'), { target: { files: [yaml] } });
    fireEvent.click(screen.getByRole('button', { name: 'Read the columns' }));
    expect(await screen.findByTestId('dataset-yaml')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Download descriptor' })).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    await waitFor(() => {
      expect(sent.some((request) => request.url === '/api/v1/datasets/import/')).toBe(true);
    });
    const post = sent.find((request) => request.url === '/api/v1/datasets/import/');
    expect((post?.form?.get('descriptor') as File).name).toBe('descriptor.yaml');
    expect(sent.some((request) => request.url === '/api/v1/datasets/describe/')).toBe(false);
  });
});
