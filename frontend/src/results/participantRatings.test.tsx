import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { ParticipantsFigure } from './charts/ParticipantsFigure';
import { parseCSVRecords } from './csv';
import { gridFixture } from './fixtures';
import { cellText, itemKeys, toItemRatings, trainingCount, valuesByScenario } from './participantRatings';
import { toTidyRatings } from './transforms';

/** Two raters of the gaming preset: a training round on B (marked 1), then B and D1 rated. */
const CSV = `rater_id,session_id,game,scenario,item,rating,training
P1,1,Racer,B,overall,5,1
P1,1,Racer,B,input_quality,6.8,1
P1,1,Racer,B,overall,4,0
P1,1,Racer,B,input_quality,3.4,0
P1,1,Racer,B,video_quality,5.25,0
P1,1,Racer,B,acceptance,1,0
P1,1,Racer,D1,overall,2,0
P1,1,Racer,D1,input_quality,2.0,0
P1,1,Racer,D1,acceptance,0,0
P2,2,Racer,B,overall,1,1
P2,2,Racer,B,overall,3,0
P2,2,Racer,D1,overall,2,0
`;

describe('the participants table ratings', () => {
  const ratings = toItemRatings(parseCSVRecords(CSV));

  it('keeps non-integer values as written, which the old reading dropped', () => {
    const old = toTidyRatings(parseCSVRecords(CSV));
    expect(old.some((r) => r.rating === 3.4)).toBe(false); // the bug: 3.4 and 5.25 vanished
    const p1 = valuesByScenario(ratings.filter((r) => r.rater_id === 'P1'));
    expect(cellText(p1, 'B', 'input_quality')).toBe('3.4');
    expect(cellText(p1, 'B', 'video_quality')).toBe('5.25');
    expect(cellText(p1, 'D1', 'input_quality')).toBe('2.0');
    expect(cellText(p1, 'D1', 'video_quality')).toBe('—'); // an optional item left empty
  });

  it('leaves the training ratings out and counts them', () => {
    const p1 = valuesByScenario(ratings.filter((r) => r.rater_id === 'P1'));
    expect(p1.B?.overall).toEqual(['4']); // not ['5', '4']: the training 5 is not shown
    expect(p1.B?.input_quality).toEqual(['3.4']);
    expect(trainingCount(ratings)).toBe(2); // P1's and P2's training round on B
  });

  it('lists the items in the CSV order and reads a CSV without items as one item', () => {
    expect(itemKeys(ratings)).toEqual(['overall', 'input_quality', 'video_quality', 'acceptance']);
    const single = toItemRatings(parseCSVRecords('rater_id,session_id,game,scenario,rating\nR1,1,g,B,4\nR1,1,g,D1,x\n'));
    expect(single).toEqual([{ rater_id: 'R1', session_id: '1', game: 'g', scenario: 'B', item: 'rating', text: '4', training: false }]);
  });
});

describe('the participants figure', () => {
  const { doc } = gridFixture();

  it('heads each scenario with one labelled column per item and shows values as entered', () => {
    const ratings = toItemRatings(parseCSVRecords(CSV.replaceAll(',Racer,', `,${Object.keys(doc.meta.games)[0] ?? 'g'},`)));
    render(<ParticipantsFigure doc={doc} ratings={ratings} scenarios={['B', 'D1']} ratingsError={null} />);
    const table = screen.getByRole('table', { name: 'Participants' });
    const items = within(table).getAllByRole('columnheader').filter((h) => h.classList.contains('participants__item'));
    expect(items.map((h) => h.textContent)).toEqual(['overall', 'input quality', 'video quality', 'acceptance', 'overall', 'input quality', 'video quality', 'acceptance']);
    expect(within(table).getByRole('columnheader', { name: 'B' })).toHaveAttribute('colspan', '4');
    const p1 = table.querySelector('tr[data-rater="P1"]');
    expect(p1?.querySelector('[data-scenario="B"][data-item="input_quality"]')).toHaveTextContent(/^3\.4$/);
    expect(p1?.querySelector('[data-scenario="B"][data-item="overall"]')).toHaveTextContent(/^4$/);
    expect(table.querySelector('tr[data-rater="P2"] [data-scenario="B"][data-item="overall"]')).toHaveTextContent(/^3$/);
    expect(document.querySelector('[data-figure-note="participants"]')).toHaveTextContent('2 training ratings not shown');
  });

  it('scrolls inside its own focusable box', () => {
    render(<ParticipantsFigure doc={doc} ratings={toItemRatings(parseCSVRecords(CSV))} scenarios={['B', 'D1']} ratingsError={null} />);
    const box = screen.getByRole('region', { name: /Participants table/ });
    expect(box).toHaveClass('participants-wrap');
    expect(box).toHaveAttribute('tabindex', '0');
    expect(within(box).getByRole('table', { name: 'Participants' })).toBeInTheDocument();
  });
});
