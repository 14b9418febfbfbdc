import { fireEvent, render, screen, within } from '@testing-library/react';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { ParticipantView } from '../api';
import { translator } from '../i18n';
import type { ItemValues } from '../items';
import { draftKey } from '../pending';
import type { PendingRating } from '../pending';
import { GAMING_PRESET } from '../ratingItems.fixture';
import { Rating } from './Rating';

function ratingView(patch: Partial<ParticipantView> = {}): ParticipantView {
  return {
    session: 7,
    step: 'rating',
    revision: 3,
    study_title: 'Study',
    language: 'en',
    game: 'Game',
    position: 4,
    scenario_count: 12,
    seconds_remaining: null,
    can_continue: false,
    needs: {},
    questions: [],
    scale: [],
    poll_interval_ms: 1000,
    trap: null,
    items: GAMING_PRESET,
    training: false,
    phase: 'test',
    phase_position: 2,
    phase_count: 10,
    ...patch,
  };
}

function renderRating(view: ParticipantView, pending: PendingRating[] = []) {
  const onRate = vi.fn<(position: number, values: ItemValues, responseMs: number) => void>();
  const result = render(
    <Rating view={view} receivedAt={0} t={translator('en')} lang="en" pending={pending} sending={false} offline={false} onRate={onRate} act={vi.fn()} />,
  );
  return { onRate, ...result };
}

/** The item's group: its fieldset, named by the question. */
const item = (question: RegExp) => screen.getByRole('group', { name: question });
const slider = (question: RegExp) => within(item(question)).getByRole('slider');

/** A key pressed on the focused element, as a keyboard would (keydown bubbles to the window). */
function press(key: string) {
  fireEvent.keyDown(document.activeElement ?? document.body, { key });
}

afterEach(() => {
  localStorage.clear();
  vi.restoreAllMocks();
});

describe('the rating screen with several items', () => {
  it('is rated with the keyboard only: number keys, arrows and Enter on sliders', () => {
    const { onRate } = renderRating(ratingView());
    const groups = screen.getAllByRole('group').filter((g) => g.hasAttribute('data-item'));
    expect(groups.map((g) => g.getAttribute('data-item'))).toEqual(['overall', 'input_quality', 'video_quality', 'acceptance']);

    // Overall (ACR-5): Tab lands on the first point, a number key chooses on this item.
    within(item(/overall quality/)).getAllByRole('radio')[0]?.focus();
    press('4');
    expect(screen.getByRole('radio', { name: '4 – Good' })).toBeChecked();
    expect(document.activeElement).toBe(screen.getByRole('radio', { name: '4 – Good' }));

    // Input quality: the slider's first arrow puts it at the midpoint, then 0.1 per key.
    slider(/quality of the input/).focus();
    expect(slider(/quality of the input/)).toHaveAttribute('aria-valuetext', 'no value yet');
    press('ArrowRight');
    expect(slider(/quality of the input/)).toHaveAttribute('aria-valuenow', '4');
    expect(slider(/quality of the input/)).toHaveAttribute('aria-valuetext', '4');
    expect(slider(/quality of the input/)).not.toHaveAttribute('data-empty');
    press('ArrowRight');
    press('ArrowRight');
    expect(slider(/quality of the input/)).toHaveAttribute('aria-valuenow', '4.2');
    // Enter while items are missing refuses and names them.
    press('Enter');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Please answer every required question first: “How would you rate the quality of the video?”, “Would you accept this quality for playing this game?”.',
    );
    expect(onRate).not.toHaveBeenCalled();
    // …and moves the focus to the first missing item.
    expect(document.activeElement).toBe(slider(/quality of the video/));

    press('ArrowLeft');
    press('ArrowLeft');
    expect(slider(/quality of the video/)).toHaveAttribute('aria-valuenow', '3.9');
    press('Home');
    press('ArrowRight');
    expect(slider(/quality of the video/)).toHaveAttribute('aria-valuenow', '1.1');

    within(item(/accept this quality/)).getAllByRole('radio')[0]?.focus();
    press('1');
    expect(within(item(/accept this quality/)).getByRole('radio', { name: '1 – Yes' })).toBeChecked();

    press('Enter');
    expect(onRate).toHaveBeenCalledTimes(1);
    expect(onRate.mock.calls[0]?.[0]).toBe(4);
    expect(onRate.mock.calls[0]?.[1]).toEqual({ overall: 4, input_quality: 4.2, video_quality: 1.1, acceptance: 1 });
  });

  it('has no axe violations, empty and filled in', async () => {
    const { container } = renderRating(ratingView());
    const check = async () => {
      const result = await axe.run(container, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
      return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`);
    };
    expect(await check()).toEqual([]);
    slider(/quality of the input/).focus();
    press('ArrowRight');
    fireEvent.click(screen.getByRole('button', { name: 'Submit rating' }));
    expect(await check()).toEqual([]);
  });

  it('starts every slider empty: no value and no thumb until it is set', () => {
    const { container } = renderRating(ratingView());
    const input = slider(/quality of the input/);
    expect(input).toHaveAttribute('aria-valuetext', 'no value yet');
    expect(input).toHaveAttribute('data-empty', 'true');
    expect(container.querySelector('.p-slider__thumb')).toBeNull();
    expect(screen.getAllByRole('radio').some((r) => (r as HTMLInputElement).checked)).toBe(false);
    expect(within(item(/quality of the input/)).getByText('extremely bad')).toHaveClass('p-slider__anchor-text');
  });

  it('sets a slider where it is touched (a 600 px track from 1 to 7)', () => {
    renderRating(ratingView());
    const track = slider(/quality of the input/);
    vi.spyOn(track, 'getBoundingClientRect').mockReturnValue(DOMRect.fromRect({ x: 100, y: 0, width: 600, height: 56 }));
    fireEvent.pointerDown(track, { clientX: 400, pointerId: 1 });
    expect(track).toHaveAttribute('aria-valuetext', '4');
    fireEvent.pointerMove(track, { clientX: 550, pointerId: 1 });
    expect(track).toHaveAttribute('aria-valuenow', '5.5');
    fireEvent.pointerUp(track, { pointerId: 1 });
    fireEvent.pointerMove(track, { clientX: 700, pointerId: 1 });
    expect(track).toHaveAttribute('aria-valuenow', '5.5');
  });

  it('blocks the submission while a required item is missing and names it', () => {
    const { onRate } = renderRating(ratingView());
    fireEvent.click(screen.getByRole('radio', { name: '3 – Fair' }));
    fireEvent.click(within(item(/accept this quality/)).getByRole('radio', { name: '0 – No' }));
    slider(/quality of the input/).focus();
    press('End');
    expect(slider(/quality of the input/)).toHaveAttribute('aria-valuetext', '7 – ideal');
    fireEvent.click(screen.getByRole('button', { name: 'Submit rating' }));
    expect(onRate).not.toHaveBeenCalled();
    expect(screen.getByRole('alert')).toHaveTextContent('“How would you rate the quality of the video?”');
    expect(screen.getByRole('alert')).not.toHaveTextContent('input');
    expect(item(/quality of the video/)).toHaveClass('p-item--missing');
    expect(within(item(/quality of the video/)).getByText('Please answer this question.')).toBeInTheDocument();
  });

  it('lets an optional item stay empty', () => {
    const items = GAMING_PRESET.map((i) => (i.key === 'video_quality' ? { ...i, required: false } : i));
    const { onRate } = renderRating(ratingView({ items }));
    expect(item(/quality of the video/)).toHaveTextContent('(optional)');
    fireEvent.click(screen.getByRole('radio', { name: '5 – Excellent' }));
    slider(/quality of the input/).focus();
    press('7');
    fireEvent.click(within(item(/accept this quality/)).getByRole('radio', { name: '1 – Yes' }));
    fireEvent.click(screen.getByRole('button', { name: 'Submit rating' }));
    expect(onRate.mock.calls[0]?.[1]).toEqual({ overall: 5, input_quality: 7, acceptance: 1 });
  });

  it('keeps every value and the first-shown time across a reload', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const first = renderRating(ratingView());
    fireEvent.click(screen.getByRole('radio', { name: '2 – Poor' }));
    slider(/quality of the video/).focus();
    press('ArrowUp');
    first.unmount();
    expect(JSON.parse(localStorage.getItem(draftKey(7, 4)) ?? 'null')).toEqual({ shown_at: 1_000_000, values: { overall: 2, video_quality: 4 } });

    now.mockReturnValue(1_030_000); // the reload, 30 s later
    const { onRate } = renderRating(ratingView());
    expect(screen.getByRole('radio', { name: '2 – Poor' })).toBeChecked();
    expect(slider(/quality of the video/)).toHaveAttribute('aria-valuenow', '4');
    expect(slider(/quality of the input/)).toHaveAttribute('aria-valuetext', 'no value yet');
    slider(/quality of the input/).focus();
    press('ArrowDown');
    fireEvent.click(within(item(/accept this quality/)).getByRole('radio', { name: '1 – Yes' }));
    now.mockReturnValue(1_042_500);
    fireEvent.click(screen.getByRole('button', { name: 'Submit rating' }));
    // response_ms counts from the first showing, not from the reload.
    expect(onRate).toHaveBeenCalledWith(4, { overall: 2, input_quality: 4, video_quality: 4, acceptance: 1 }, 42_500);
  });

  it('keeps a draft per slot: the next slot starts empty with its own clock', () => {
    vi.spyOn(Date, 'now').mockReturnValue(5_000);
    const first = renderRating(ratingView());
    fireEvent.click(screen.getByRole('radio', { name: '2 – Poor' }));
    first.unmount();
    renderRating(ratingView({ position: 5 }));
    expect(screen.getAllByRole('radio').some((r) => (r as HTMLInputElement).checked)).toBe(false);
  });

  it('shows a submitted, unsent rating with its values and no submit button', () => {
    const kept: PendingRating = {
      session: 7,
      position: 4,
      values: { overall: 5, input_quality: 6.5, video_quality: 2, acceptance: 0 },
      response_ms: 900,
      idempotency_key: 'key-12345678',
      saved_at: '',
    };
    renderRating(ratingView(), [kept]);
    expect(screen.getByRole('radio', { name: '5 – Excellent' })).toBeChecked();
    expect(slider(/quality of the input/)).toHaveAttribute('aria-valuenow', '6.5');
    expect(screen.queryByRole('button', { name: 'Submit rating' })).toBeNull();
  });

  it('labels the training rounds apart from the rated ones', () => {
    const training = renderRating(ratingView({ training: true, phase: 'training', position: 1, phase_position: 1, phase_count: 2 }));
    expect(screen.getByText('Training round 1 of 2')).toBeInTheDocument();
    training.unmount();
    renderRating(ratingView({ position: 3, phase_position: 1, phase_count: 10 }));
    expect(screen.getByText('Round 1 of 10')).toBeInTheDocument();
  });

  it('shows the items in German', () => {
    render(
      <Rating
        view={ratingView({ phase: 'training', phase_position: 2, phase_count: 2 })}
        receivedAt={0}
        t={translator('de')}
        lang="de"
        pending={[]}
        sending={false}
        offline={false}
        onRate={vi.fn()}
        act={vi.fn()}
      />,
    );
    expect(screen.getByText('Übungsrunde 2 von 2')).toBeInTheDocument();
    expect(screen.getByRole('group', { name: /Qualität des Videos/ })).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: '1 – Ja' })).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: '1 – Schlecht' })).toBeInTheDocument();
  });
});
