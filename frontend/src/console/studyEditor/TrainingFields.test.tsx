import { fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';

import { exampleStudy } from '../../test/fixtures';
import { TrainingFields, trainingSecondsFor } from './TrainingFields';
import type { TrainingDraft } from './TrainingFields';

/** The fields with their own state, as the rating items editor holds them. */
function Harness({ scenarioSeconds }: { scenarioSeconds: number }) {
  const [training, setTraining] = useState<TrainingDraft>({ enabled: false, scenarios: [], seconds: '60' });
  return <TrainingFields training={training} scenarios={exampleStudy.scenarios} scenarioSeconds={scenarioSeconds} err={() => undefined} onChange={setTraining} />;
}

const switchOn = () => {
  fireEvent.click(screen.getByLabelText(/Train participants on anchor scenarios/));
};

describe('TrainingFields (issue 35, form friction)', () => {
  it('names the ticked anchors in the note, and the defaults only when none is ticked', () => {
    render(<Harness scenarioSeconds={90} />);
    switchOn();
    const anchors = screen.getByRole('group', { name: 'Anchor scenarios' });
    expect(within(anchors).getByRole('checkbox', { name: /^B/ })).toBeChecked();
    expect(anchors).toHaveAccessibleDescription('Played in this order: B, D1. With none ticked, the baseline and the most impaired scenario are played.');
    expect(anchors).not.toHaveTextContent('None chosen');
    fireEvent.click(within(anchors).getByRole('checkbox', { name: /^B/ }));
    fireEvent.click(within(anchors).getByRole('checkbox', { name: /^D1/ }));
    expect(anchors).toHaveAccessibleDescription('None chosen: the baseline and the most impaired scenario (B, D1) are played.');
  });

  it("starts the training time from the study's scenario time, within 10–600 s", () => {
    render(<Harness scenarioSeconds={90} />);
    switchOn();
    const seconds = screen.getByLabelText('Seconds per training scenario');
    expect(seconds).toHaveValue(90);
    expect(seconds).toHaveAccessibleDescription(/the study's scenarios play 90 s/);
    expect([5, 90, 3600].map(trainingSecondsFor)).toEqual([10, 90, 600]);
  });
});
