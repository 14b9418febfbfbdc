/**
 * The withdrawal panel: the confirm dialog names what will happen, the POST carries the
 * chosen mode, the banner counts the withdrawn, and a member sees no withdraw buttons.
 */
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { jsonResponse } from '../../test/fetchMock';
import { withQueries } from '../../test/queries';
import { WithdrawalPanel } from './WithdrawalPanel';

const P1 = { id: 11, study: 3, code: 'P001', consent_at: null, age: 30, skill: 'high', genre_preferences: {}, created_at: '2026-01-01T00:00:00Z', withdrawal: '', withdrawn_at: null };
const ENTRY = { id: 1, participant: 11, participant_code: 'P001', mode: 'exclude', reason: 'asked', by_username: 'alice', at: '2026-01-02T00:00:00Z', erased: { sessions: 0, ratings: 0, answers: 0 } };

afterEach(() => {
  vi.unstubAllGlobals();
});

function server(withdrawn: boolean, auditStatus = 200) {
  const posts: unknown[] = [];
  const state = { withdrawn };
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      if (init?.method === 'POST') {
        posts.push(typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : null);
        state.withdrawn = true;
        return Promise.resolve(jsonResponse({ participant: { ...P1, withdrawal: 'exclude' }, withdrawal: ENTRY, created: true }));
      }
      if (url === '/api/v1/participants/?study=3') return Promise.resolve(jsonResponse([{ ...P1, withdrawal: state.withdrawn ? 'exclude' : '' }]));
      if (url === '/api/v1/studies/3/withdrawals/') {
        if (auditStatus !== 200) return Promise.resolve(jsonResponse({ detail: 'no' }, auditStatus, 'Forbidden'));
        return Promise.resolve(jsonResponse(state.withdrawn ? { excluded: 1, erased: 0, entries: [ENTRY] } : { excluded: 0, erased: 0, entries: [] }));
      }
      return Promise.resolve(jsonResponse({ detail: `no mock for ${url}` }, 404, 'Not Found'));
    }),
  );
  return posts;
}

describe('WithdrawalPanel', () => {
  it('confirms with what will happen, posts the mode, then shows the banner and the audit', async () => {
    const posts = server(false);
    render(withQueries(<WithdrawalPanel studyId={3} />));
    fireEvent.click(await screen.findByRole('button', { name: 'Withdraw P001…' }));
    expect(screen.getByTestId('withdraw-consequence')).toHaveTextContent('leave them out');
    fireEvent.click(screen.getByRole('radio', { name: 'Erase' }));
    expect(screen.getByTestId('withdraw-consequence')).toHaveTextContent("All of P001's sessions, ratings and questionnaire answers will be deleted for good");
    fireEvent.click(screen.getByRole('radio', { name: 'Exclude and keep' }));
    fireEvent.change(screen.getByLabelText('Reason (optional, kept in the audit)'), { target: { value: 'asked' } });
    fireEvent.click(screen.getByRole('button', { name: 'Exclude P001' }));

    await waitFor(() => {
      expect(posts).toEqual([{ mode: 'exclude', reason: 'asked' }]);
    });
    expect(await screen.findByTestId('withdrawn-banner')).toHaveTextContent('1 participant excluded: the analysis and every export leave them out.');
    expect(await screen.findByRole('table', { name: 'Withdrawal audit' })).toHaveTextContent('alice');
    expect(screen.queryByTestId('withdraw-dialog')).toBeNull();
  });

  it('tells a member that only the owner may withdraw', async () => {
    server(false, 403);
    render(withQueries(<WithdrawalPanel studyId={3} />));
    expect(await screen.findByText("Only the study's owner may withdraw participants and read the audit.")).toBeInTheDocument();
    expect(screen.queryByRole('button')).toBeNull();
  });
});
