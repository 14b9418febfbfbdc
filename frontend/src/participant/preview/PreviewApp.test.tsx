/**
 * The preview steps through the study's screens with Back and Next, and a screen's own
 * submit only moves on: the one request is the GET of the preview (a POST would fail this).
 */
import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { recordFetch } from '../../test/fetchMock';
import type { ParticipantView } from '../api';
import { GAMING_PRESET } from '../ratingItems.fixture';
import { PreviewApp } from './PreviewApp';
import { parsePreviewPath, previewPath } from './previewLink';

function view(patch: Partial<ParticipantView>): ParticipantView {
  return {
    session: 0,
    step: 'thanks',
    revision: 1,
    study_title: 'Study',
    language: 'en',
    game: 'Gran Turismo',
    position: null,
    scenario_count: 3,
    seconds_remaining: null,
    can_continue: false,
    needs: {},
    questions: [],
    scale: [],
    poll_interval_ms: 1000,
    trap: null,
    items: [],
    training: false,
    phase: null,
    phase_position: null,
    phase_count: null,
    ...patch,
  };
}

const SCREENS = [
  { title: 'Free play', view: view({ step: 'free_play', can_continue: true, seconds_remaining: 0 }) },
  { title: 'Rating', view: view({ step: 'rating', position: 1, phase: 'test', phase_position: 1, phase_count: 2, items: GAMING_PRESET }) },
  { title: 'End', view: view({ step: 'thanks' }) },
];

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('PreviewApp', () => {
  it('shows the banner, steps with Next and Back, and sends nothing but the one GET', async () => {
    localStorage.setItem('qoelab:draft:0:1', JSON.stringify({ shown_at: 1, values: { overall: 2 } }));
    localStorage.setItem('qoelab:draft:7:1', 'kept');
    const calls = recordFetch({ status: 200, body: { study: 4, screens: SCREENS } });
    render(<PreviewApp studyId={4} />);

    expect(screen.getByTestId('preview-banner')).toHaveTextContent('Preview — nothing is stored');
    expect(await screen.findByText('Screen 1 of 3: Free play')).toBeInTheDocument();
    // the screen's own button moves on instead of calling the API
    fireEvent.click(screen.getByRole('button', { name: 'Start the rounds' }));
    expect(await screen.findByText('Screen 2 of 3: Rating')).toBeInTheDocument();
    expect(screen.getByText('Round 1 of 2')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByText('Screen 1 of 3: Free play')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByText('Screen 3 of 3: End')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /api/v1/studies/4/preview/']);
    // the preview's own drafts (session 0) are cleared, a real session's are not
    expect(localStorage.getItem('qoelab:draft:0:1')).toBeNull();
    expect(localStorage.getItem('qoelab:draft:7:1')).toBe('kept');
  });

  it('says why when the preview cannot be loaded', async () => {
    recordFetch({ status: 404, body: { detail: 'Not found.' } });
    render(<PreviewApp studyId={9} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('The preview could not be loaded: Not found.');
  });

  it('reads and writes its address', () => {
    expect(parsePreviewPath(previewPath(12))).toBe(12);
    expect(parsePreviewPath('/participant/12')).toBeNull();
    expect(parsePreviewPath('/participant/preview/x')).toBeNull();
  });
});
