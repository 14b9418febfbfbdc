import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import type { ParticipantView } from '../api';
import { translator } from '../i18n';
import type { ItemValues } from '../items';
import { GAMING_PRESET } from '../ratingItems.fixture';
import { Screen } from '../screens';

const TRAP = { en: "Please select 'Poor' for this question.", de: "Bitte wählen Sie bei dieser Frage 'Dürftig'." };

function trapView(lang: 'en' | 'de' = 'en'): ParticipantView {
  return {
    session: 7, step: 'rating', revision: 3, study_title: 'Study', language: lang, game: 'Game', position: 5, scenario_count: 12,
    seconds_remaining: null, can_continue: false, needs: {}, questions: [], scale: [], poll_interval_ms: 1000,
    // the server sends only the first item for a trap
    items: GAMING_PRESET.slice(0, 1), training: false, phase: 'test', phase_position: 4, phase_count: 11, trap: TRAP,
  };
}

describe('the trapping screen (ITU-T P.808)', () => {
  it('is the rating form asking the first item with the instruction as its question, in the chosen language', () => {
    const onRate = vi.fn<(position: number, values: ItemValues, responseMs: number) => void>();
    const { unmount } = render(<Screen view={trapView()} receivedAt={0} t={translator('en')} lang="en" pending={[]} sending={false} offline={false} onRate={onRate} act={vi.fn()} />);
    const group = screen.getByRole('group', { name: new RegExp(TRAP.en.replace(/[.()']/g, '.')) });
    expect(group).toBeInTheDocument();
    expect(screen.queryByText(GAMING_PRESET[0]?.question.en ?? '')).toBeNull();
    fireEvent.keyDown(document.body, { key: '2' });
    fireEvent.keyDown(document.body, { key: 'Enter' });
    expect(onRate).toHaveBeenCalledWith(5, { overall: 2 }, expect.any(Number));
    unmount();
    render(<Screen view={trapView('de')} receivedAt={0} t={translator('de')} lang="de" pending={[]} sending={false} offline={false} onRate={vi.fn()} act={vi.fn()} />);
    expect(screen.getByText(TRAP.de)).toBeInTheDocument();
  });
});
