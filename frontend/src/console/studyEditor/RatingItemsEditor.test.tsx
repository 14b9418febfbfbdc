import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { GAMING_PRESET, RATING_PRESETS } from '../../participant/ratingItems.fixture';
import { jsonResponse } from '../../test/fetchMock';
import type { RecordedCall } from '../../test/fetchMock';
import { exampleStudy } from '../../test/fixtures';
import { withQueries } from '../../test/queries';
import { placeFieldErrors } from './fieldErrorsUnder';
import { defaultAnchors, impairment } from './ratingSettings';
import { RatingItemsEditor } from './RatingItemsEditor';

/** GET presets answers the fixture; PATCH of the study answers `patch`. */
function fakeApi(patch: { status: number; body: unknown }): RecordedCall[] {
  const calls: RecordedCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname : input.url;
      const method = init?.method ?? 'GET';
      calls.push({ method, url, body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null });
      if (method === 'GET' && url === '/api/v1/rating-presets/') return Promise.resolve(jsonResponse(RATING_PRESETS));
      if (method === 'PATCH' && url === '/api/v1/studies/1/') {
        return Promise.resolve(jsonResponse(patch.body, patch.status, patch.status >= 400 ? 'Bad Request' : 'OK'));
      }
      return Promise.resolve(jsonResponse({ detail: 'unexpected' }, 404, 'Not Found'));
    }),
  );
  return calls;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

const itemCards = () => within(screen.getByRole('list', { name: 'Rating items' })).getAllByRole('listitem');

describe('RatingItemsEditor', { timeout: 20_000 }, () => {
  it('starts from the single ACR-5 item and fills the four gaming items from the preset', async () => {
    const calls = fakeApi({ status: 200, body: exampleStudy });
    const onSaved = vi.fn();
    render(withQueries(<RatingItemsEditor study={exampleStudy} onSaved={onSaved} />));
    const preset = screen.getByRole('button', { name: 'Gaming preset (ITU-T P.809)' });
    await waitFor(() => {
      expect(preset).toBeEnabled();
    });
    expect(itemCards()).toHaveLength(1);
    expect(screen.getByLabelText('Key of item 1')).toHaveValue('overall');

    fireEvent.click(preset);
    expect(itemCards()).toHaveLength(4);
    expect([1, 2, 3, 4].map((n) => screen.getByLabelText<HTMLInputElement>(`Key of item ${n}`).value)).toEqual([
      'overall',
      'input_quality',
      'video_quality',
      'acceptance',
    ]);
    expect(screen.getByLabelText('Scale of input_quality')).toHaveValue('continuous');
    expect(screen.getByLabelText('Highest value of video_quality')).toHaveValue('7');
    expect(screen.getByLabelText('Scale of acceptance')).toHaveValue('binary');
    // A binary acceptance item needs no cut.
    expect(screen.getByLabelText('Acceptance item')).toHaveValue('acceptance');
    expect(screen.queryByLabelText('Acceptable from (value ≥)')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Save rating items' }));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    const saved = calls.find((c) => c.method === 'PATCH');
    expect(saved?.body).toEqual({
      rating_items: GAMING_PRESET,
      acceptance: { item: 'acceptance' },
      training: { enabled: false, scenarios: [], seconds: 60 },
      quality_control: { traps: [], hidden_reference: null },
      min_response_ms: 1000,
    });
    expect(onSaved).toHaveBeenCalled();
  });

  it('shows a 4xx at the field it names', async () => {
    // As the backend words it (qoe_analysis.scales): the message starts with the field's path.
    fakeApi({
      status: 400,
      body: {
        rating_items: ['rating_items[1].scale.max: must be greater than min (7)'],
        min_response_ms: ['min_response_ms: a whole number of milliseconds from 0 to 600000'],
      },
    });
    render(withQueries(<RatingItemsEditor study={exampleStudy} onSaved={vi.fn()} />));
    const preset = screen.getByRole('button', { name: 'Gaming preset (ITU-T P.809)' });
    await waitFor(() => {
      expect(preset).toBeEnabled();
    });
    fireEvent.click(preset);
    fireEvent.change(screen.getByLabelText('Highest value of input_quality'), { target: { value: '0' } });
    fireEvent.change(screen.getByLabelText('Fast answer floor (ms)'), { target: { value: '-5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save rating items' }));
    const max = screen.getByLabelText('Highest value of input_quality');
    await waitFor(() => {
      expect(max).toHaveAttribute('aria-invalid', 'true');
    });
    expect(max).toHaveAccessibleDescription('must be greater than min (7)');
    expect(screen.getByLabelText('Fast answer floor (ms)')).toHaveAccessibleDescription(/a whole number of milliseconds from 0 to 600000/);
    expect(screen.getByLabelText('Highest value of video_quality')).toHaveAttribute('aria-invalid', 'false');
    expect(screen.queryByText('Saved.')).toBeNull();
  });

  it('adds, reorders and removes items, and sets the cut for a non-binary acceptance item', async () => {
    const calls = fakeApi({ status: 200, body: exampleStudy });
    render(withQueries(<RatingItemsEditor study={exampleStudy} onSaved={vi.fn()} />));
    await waitFor(() => {
      expect(screen.getByRole('button', { name: 'ACR-5 only' })).toBeEnabled();
    });
    fireEvent.click(screen.getByRole('button', { name: 'Add a rating item' }));
    fireEvent.change(screen.getByLabelText('Key of item 2'), { target: { value: 'smooth' } });
    fireEvent.change(screen.getByLabelText('Scale of smooth'), { target: { value: 'discrete' } });
    fireEvent.change(screen.getByLabelText('Highest value of smooth'), { target: { value: '9' } });
    fireEvent.click(screen.getByRole('button', { name: 'Move smooth up' }));
    expect(screen.getByLabelText('Key of item 1')).toHaveValue('smooth');
    fireEvent.change(screen.getByLabelText('Acceptance item'), { target: { value: 'smooth' } });
    fireEvent.change(screen.getByLabelText('Acceptable from (value ≥)'), { target: { value: '5' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save rating items' }));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    const body = calls.find((c) => c.method === 'PATCH')?.body as { rating_items: { key: string; scale: unknown }[]; acceptance: unknown };
    expect(body.rating_items.map((i) => i.key)).toEqual(['smooth', 'overall']);
    expect(body.rating_items[0]?.scale).toEqual({ kind: 'discrete', min: 1, max: 9, step: 1, labels: [] });
    expect(body.acceptance).toEqual({ item: 'smooth', min: 5 });

    fireEvent.click(screen.getByRole('button', { name: 'Remove smooth' }));
    expect(itemCards()).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Remove overall' })).toBeDisabled(); // at least one item
  });

  it('switches training on with the baseline and the most impaired scenario as anchors', async () => {
    const calls = fakeApi({ status: 200, body: exampleStudy });
    render(withQueries(<RatingItemsEditor study={exampleStudy} onSaved={vi.fn()} />));
    fireEvent.click(screen.getByLabelText(/Train participants on anchor scenarios/));
    const anchors = screen.getByRole('group', { name: 'Anchor scenarios' });
    expect(within(anchors).getByRole('checkbox', { name: /B – No impairment \(baseline\)/ })).toBeChecked();
    expect(within(anchors).getByRole('checkbox', { name: /D1 – Moderate delay \(most impaired\)/ })).toBeChecked();
    expect(within(anchors).getByRole('checkbox', { name: /L1/ })).not.toBeChecked();
    fireEvent.change(screen.getByLabelText('Seconds per training scenario'), { target: { value: '45' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save rating items' }));
    await screen.findByText('Saved.');
    expect((calls.find((c) => c.method === 'PATCH')?.body as { training: unknown }).training).toEqual({
      enabled: true,
      scenarios: ['B', 'D1'],
      seconds: 45,
    });
  });
});

describe('the scale select (issue 35: "ACR-5 (absolute cate" was clipped)', () => {
  it('offers short kind names and describes the chosen kind under the select', () => {
    fakeApi({ status: 200, body: exampleStudy });
    render(withQueries(<RatingItemsEditor study={exampleStudy} onSaved={vi.fn()} />));
    const select = screen.getByLabelText('Scale of overall');
    const names = within(select).getAllByRole('option').map((o) => o.textContent);
    expect(names).toEqual(['ACR-5', 'DCR-5', 'Discrete k-point', 'Continuous slider', 'Yes / no']);
    expect(select).toHaveAccessibleDescription(/^ACR-5: absolute category rating, 1 bad … 5 excellent/);
  });
});

describe('placeFieldErrors', () => {
  it('files a message under the path it starts with, when that path lies under its key', () => {
    expect(
      placeFieldErrors({
        rating_items: 'rating_items[0].scale.labels[2].value: 9 is not a value of the scale',
        training: 'training.seconds: a whole number from 10 to 600',
        acceptance: 'the study has sessions',
        title: 'rating_items[0].key: not under this key',
      }),
    ).toEqual({
      'rating_items.0.scale.labels.2.value': '9 is not a value of the scale',
      'training.seconds': 'a whole number from 10 to 600',
      acceptance: 'the study has sessions',
      title: 'rating_items[0].key: not under this key',
    });
  });
});

describe('the default training anchors', () => {
  it('are the baseline and the largest delay ms + 10 × loss % over both directions', () => {
    const [, d1, l1] = exampleStudy.scenarios;
    expect(d1 && impairment(d1)).toBe(25 + 50 + 10 * 0.5); // 80
    expect(l1 && impairment(l1)).toBe(10 + 15 + 10 * (0.25 + 2)); // 47.5
    expect(defaultAnchors(exampleStudy.scenarios)).toEqual(['B', 'D1']);
  });

  it('break ties by code', () => {
    const [b, d1] = exampleStudy.scenarios;
    if (!b || !d1) throw new Error('fixture');
    const twin = { ...d1, id: 99, code: 'A9' };
    expect(defaultAnchors([b, d1, twin])).toEqual(['B', 'A9']);
  });
});
