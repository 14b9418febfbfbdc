import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { jsonResponse } from '../test/fetchMock';
import type { ParticipantView } from './api';
import { ParticipantApp } from './ParticipantApp';
import { GAMING_PRESET } from './ratingItems.fixture';

const TOKEN = 'participant-token-abcdefgh';
const BASE = '/api/v1/participant/sessions/5/';

function view(patch: Partial<ParticipantView>): ParticipantView {
  return {
    session: 5,
    step: 'rating',
    revision: 10,
    study_title: 'Study',
    language: 'en',
    game: 'Gran Turismo',
    position: 2,
    scenario_count: 10,
    seconds_remaining: null,
    can_continue: false,
    needs: {},
    questions: [],
    scale: ['bad', 'poor', 'fair', 'good', 'excellent'].map((label, i) => ({ score: i + 1, label })),
    poll_interval_ms: 1000,
    trap: null,
    items: [],
    training: false,
    phase: 'test',
    phase_position: null,
    phase_count: null,
    ...patch,
  };
}

interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

/** A fake participant API: GET answers `current`; POST rate answers `onRate`. */
function fakeServer(initial: ParticipantView) {
  const state = { current: initial, offline: false, calls: [] as Call[] };
  const fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
    const method = init?.method ?? 'GET';
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    state.calls.push({ url, method, headers: new Headers(init?.headers), body });
    if (state.offline) return Promise.reject(new TypeError('Failed to fetch'));
    if (method === 'GET' && url === BASE) return Promise.resolve(jsonResponse(state.current));
    if (method === 'POST' && url === `${BASE}rate/`) {
      state.current = view({ step: 'playing', position: 3, revision: state.current.revision + 2, seconds_remaining: 60 });
      return Promise.resolve(jsonResponse({ created: true, position: 2, score: 4, session: state.current }, 201));
    }
    return Promise.resolve(jsonResponse({ detail: 'unexpected' }, 404));
  });
  vi.stubGlobal('fetch', fetchMock);
  return state;
}

afterEach(() => {
  localStorage.clear();
});

const rateCalls = (calls: Call[]) => calls.filter((c) => c.method === 'POST' && c.url.endsWith('/rate/'));

describe('the rating form', () => {
  it('has no default, cannot be skipped, and is answered with the keys 1–5 and Enter', async () => {
    const server = fakeServer(view({}));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your rating' })).toBeInTheDocument();
    expect(screen.getByText('Round 2 of 10')).toBeInTheDocument();
    const radios = screen.getAllByRole('radio');
    expect(radios).toHaveLength(5);
    expect(radios.some((r) => (r as HTMLInputElement).checked)).toBe(false);
    expect(screen.getByRole('radio', { name: /^1 – bad/ })).toBeInTheDocument();

    fireEvent.keyDown(window, { key: 'Enter' });
    expect(await screen.findByText('Please choose a rating first.')).toBeInTheDocument();
    expect(rateCalls(server.calls)).toHaveLength(0);

    fireEvent.keyDown(window, { key: '4' });
    expect(screen.getByRole('radio', { name: /^4 – good/ })).toBeChecked();
    fireEvent.keyDown(window, { key: 'Enter' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Play now' })).toBeInTheDocument();
    const [call] = rateCalls(server.calls);
    expect(call?.body).toMatchObject({ values: { overall: 4 }, position: 2 });
    expect((call?.body as { response_ms: unknown }).response_ms).toEqual(expect.any(Number));
    expect(call?.headers.get('X-Participant-Token')).toBe(TOKEN);
    expect(localStorage.length).toBeGreaterThan(0); // the token and language, but…
    expect(Object.keys(localStorage).filter((k) => k.startsWith('qoelab:rating:'))).toEqual([]); // …no pending rating
  });

  it('keeps a rating given offline and sends it, with the same key, when the connection returns', async () => {
    const server = fakeServer(view({}));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'de' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Ihre Bewertung' })).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: /^2 – dürftig/ })).toBeInTheDocument();

    server.offline = true;
    fireEvent.click(screen.getByRole('radio', { name: /^5 – ausgezeichnet/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Bewertung abschicken' }));
    expect(await screen.findByText('Gespeichert – wird gesendet, sobald die Verbindung wieder besteht.')).toBeInTheDocument();
    const stored = JSON.parse(localStorage.getItem('qoelab:rating:5:2') ?? 'null') as { values: unknown; idempotency_key: string };
    expect(stored.values).toEqual({ overall: 5 });
    const firstKey = (rateCalls(server.calls)[0]?.body as { idempotency_key: string }).idempotency_key;
    expect(firstKey).toBe(stored.idempotency_key);

    server.offline = false;
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Jetzt spielen' })).toBeInTheDocument();
    const keys = rateCalls(server.calls).map((c) => (c.body as { idempotency_key: string }).idempotency_key);
    expect(new Set(keys)).toEqual(new Set([firstKey]));
    await waitFor(() => {
      expect(localStorage.getItem('qoelab:rating:5:2')).toBeNull();
    });
    expect(localStorage.getItem('qoelab:draft:5:2')).toBeNull(); // acknowledged: the draft goes too
  });

  it('sends a rating kept (by an older version, as a score) from before a reload as soon as the page is back', async () => {
    localStorage.setItem(
      'qoelab:rating:5:2',
      JSON.stringify({ session: 5, position: 2, score: 3, idempotency_key: 'kept-key-123456', saved_at: '' }),
    );
    const server = fakeServer(view({}));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Play now' })).toBeInTheDocument();
    expect(rateCalls(server.calls)[0]?.body).toEqual({ values: { overall: 3 }, response_ms: null, position: 2, idempotency_key: 'kept-key-123456' });
  });
});

describe('the rating screen with the gaming preset', () => {
  it('posts every item value and the response time from the first showing', async () => {
    const clock = vi.spyOn(Date, 'now').mockReturnValue(50_000);
    const server = fakeServer(view({ items: GAMING_PRESET, phase: 'training', phase_position: 1, phase_count: 2, training: true, position: 2 }));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByText('Training round 1 of 2')).toBeInTheDocument();
    fireEvent.keyDown(window, { key: '3' }); // outside every item: the first item
    for (const name of [/quality of the input/, /quality of the video/]) {
      const slider = screen.getByRole('slider', { name });
      slider.focus();
      fireEvent.keyDown(slider, { key: 'End' });
    }
    fireEvent.click(screen.getByRole('radio', { name: '0 – No' }));
    clock.mockReturnValue(57_250);
    fireEvent.keyDown(window, { key: 'Enter' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Play now' })).toBeInTheDocument();
    expect(rateCalls(server.calls)[0]?.body).toMatchObject({
      values: { overall: 3, input_quality: 7, video_quality: 7, acceptance: 0 },
      response_ms: 7250,
      position: 2,
    });
    clock.mockRestore();
  });
});

describe('language', () => {
  it("starts in the study's language when neither the participant nor the link chose one", async () => {
    fakeServer(view({ step: 'waiting', position: null, language: 'de' }));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: null }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Willkommen' })).toBeInTheDocument();
    // Set by an effect after the commit that shows the heading (a loaded machine can see both apart).
    await waitFor(() => {
      expect(document.documentElement.lang).toBe('de');
    });
    // The participant may still switch; the choice is kept for the session.
    fireEvent.click(screen.getByRole('button', { name: 'Show in English' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome' })).toBeInTheDocument();
    expect(localStorage.getItem('qoelab:lang:5')).toBe('en');
  });

  it("lets the link's lang override the study's language, and the participant's switch both", async () => {
    fakeServer(view({ step: 'waiting', position: null, language: 'de' }));
    const { unmount } = render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome' })).toBeInTheDocument();
    unmount();

    localStorage.setItem('qoelab:lang:5', 'de');
    fakeServer(view({ step: 'waiting', position: null, language: 'en' }));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Willkommen' })).toBeInTheDocument();
  });
});

describe('other steps', () => {
  it('asks for consent before the questionnaire and names what is missing', async () => {
    fakeServer(view({ step: 'questionnaire', position: null, needs: { consent: true, age: true, skill: true } }));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Consent' })).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Please confirm your consent to continue.')).toBeInTheDocument();
    fireEvent.click(screen.getByLabelText('I have read this and agree to take part.'));
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'A few questions before you play' })).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getAllByText('Please answer this question.')).toHaveLength(3);
  });

  it('shows an invalid link in words', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(jsonResponse({ detail: 'unknown participant token' }, 401))));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { name: /session link is not valid/ })).toBeInTheDocument();
  });

  it('never shows scenario details while playing', async () => {
    fakeServer(view({ step: 'playing', position: 4, seconds_remaining: 42 }));
    render(<ParticipantApp link={{ sessionId: 5, token: TOKEN, lang: 'en' }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Play now' })).toBeInTheDocument();
    expect(screen.getByTestId('countdown')).toHaveTextContent('0:42');
    expect(document.body.textContent).not.toMatch(/delay|loss|ms\b|%/i);
  });
});
