import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { jsonResponse } from '../test/fetchMock';
import { ParticipantApp } from './ParticipantApp';

const TOKEN = 'participant-token-abcdefgh';
const EXPIRED = { code: 'token_expired', detail: 'this session link has expired: its session ended more than 7 days ago' };

afterEach(() => {
  localStorage.clear();
  vi.useRealTimers();
});

/** Every request answers 410 token_expired (issue 34); returns the fetch stub. */
function expiredServer() {
  const fetchMock = vi.fn(() => Promise.resolve(jsonResponse(EXPIRED, 410, 'Gone')));
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

describe('an expired session link', () => {
  it('shows a clear page that sends the participant to the researcher', async () => {
    expiredServer();
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'This link has expired' })).toBeInTheDocument();
    expect(screen.getByText(/ask the researcher/)).toBeInTheDocument();
    expect(screen.queryByText(/not valid/)).toBeNull(); // not the invalid-link page
    expect(screen.queryByRole('alert')).toBeNull(); // no "something went wrong" banner
  });

  it('is translated', async () => {
    expiredServer();
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'de' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Dieser Link ist abgelaufen' })).toBeInTheDocument();
    expect(screen.getByText(/fragen Sie bitte die Versuchsleitung/)).toBeInTheDocument();
  });

  it('stops polling and drops ratings that can no longer be sent', async () => {
    localStorage.setItem(
      'qoelab:rating:5:2',
      JSON.stringify({ session: 5, position: 2, values: { overall: 3 }, response_ms: 900, idempotency_key: 'kept-key-123456', saved_at: '' }),
    );
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetchMock = expiredServer();
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'This link has expired' })).toBeInTheDocument();
    await waitFor(() => {
      expect(localStorage.getItem('qoelab:rating:5:2')).toBeNull();
    });
    const calls = fetchMock.mock.calls.length;
    // Many poll intervals (1 s) and rating retries (3 s) later, no request has followed.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(fetchMock.mock.calls.length).toBe(calls);
  });
});
