import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { apiKey, sendJSON, sessionsPath, studyImportPath, useApiQuery } from '../api';
import { jsonResponse } from '../test/fetchMock';
import { withQueries } from '../test/queries';
import { useAction } from './hooks';

function ImportAndList() {
  const sessions = useApiQuery<{ id: number }[]>(sessionsPath(1), { keepPrevious: true });
  const action = useAction();
  const runImport = () => action.run(() => sendJSON('POST', studyImportPath(1)), [apiKey(sessionsPath())]);
  return (
    <>
      <p data-testid="rows">{sessions.data ? `${sessions.data.length} rows` : 'loading'}</p>
      <p data-testid="busy">{action.busy ? 'busy' : 'idle'}</p>
      <button type="button" onClick={() => void runImport()}>
        Import
      </button>
    </>
  );
}

describe('useAction with useApiQuery', () => {
  it('reloads the lists a mutation invalidates, keeping their rows until the new ones arrive', async () => {
    let answerReload: (rows: { id: number }[]) => void = () => undefined;
    const calls: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
        const method = init?.method ?? 'GET';
        calls.push(`${method} ${url}`);
        if (method === 'POST') return Promise.resolve(jsonResponse({ sessions: 1, ratings: 3, participants_created: 1 }));
        if (calls.filter((c) => c.startsWith('GET')).length === 1) return Promise.resolve(jsonResponse([{ id: 1 }]));
        return new Promise<Response>((resolve) => {
          answerReload = (rows) => {
            resolve(jsonResponse(rows));
          };
        });
      }),
    );
    render(withQueries(<ImportAndList />));
    expect(await screen.findByText('1 rows')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Import' }));

    await waitFor(() => {
      expect(calls).toEqual(['GET /api/v1/sessions/?study=1', 'POST /api/v1/studies/1/import/', 'GET /api/v1/sessions/?study=1']);
    });
    // The reload is in flight: the list still shows its rows and the action is still busy.
    expect(screen.getByTestId('rows')).toHaveTextContent('1 rows');
    expect(screen.getByTestId('busy')).toHaveTextContent('busy');

    act(() => {
      answerReload([{ id: 1 }, { id: 2 }]);
    });
    expect(await screen.findByText('2 rows')).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.getByTestId('busy')).toHaveTextContent('idle');
    });
  });
});
