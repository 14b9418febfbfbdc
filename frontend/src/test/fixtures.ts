import type { StudyDetail, StudySummary } from '../api';

/** The writable study settings, at the backend's defaults. */
const defaultSettings = {
  owner: 'researcher',
  version: 1,
  scale_labels: ['Bad', 'Poor', 'Fair', 'Good', 'Excellent'],
  seconds_per_scenario: 90,
  free_play_minutes: 5,
  order_policy: 'random',
  retest_round: false,
  questionnaire: [],
  language: 'en',
} satisfies Partial<StudyDetail>;

export const exampleStudy: StudyDetail = {
  ...defaultSettings,
  id: 1,
  slug: 'example',
  title: 'Example cloud-gaming study',
  description: 'How delay, jitter and loss affect perceived quality across game paces.',
  games: [
    { id: 11, name: 'Arena Shooter', pace: 'fast', genre: 'shooter' },
    { id: 12, name: 'Kart Racer', pace: 'medium', genre: 'racing' },
    { id: 13, name: 'Card Tactics', pace: 'slow', genre: 'card' },
  ],
  scenarios: [
    {
      id: 21,
      code: 'B',
      label: 'No impairment',
      position: 0,
      is_baseline: true,
      upstream: { delay_ms: 0, jitter_ms: 0, loss_pct: 0 },
      downstream: { delay_ms: 0, jitter_ms: 0, loss_pct: 0 },
    },
    {
      id: 22,
      code: 'D1',
      label: 'Moderate delay',
      position: 1,
      is_baseline: false,
      upstream: { delay_ms: 25, jitter_ms: 2, loss_pct: 0 },
      downstream: { delay_ms: 50, jitter_ms: 5, loss_pct: 0.5 },
    },
    {
      id: 23,
      code: 'L1',
      label: 'Lossy downlink',
      position: 2,
      is_baseline: false,
      upstream: { delay_ms: 10, jitter_ms: 1, loss_pct: 0.25 },
      downstream: { delay_ms: 15, jitter_ms: 3, loss_pct: 2 },
    },
  ],
};

export function summaryOf(study: StudyDetail): StudySummary {
  return {
    id: study.id,
    slug: study.slug,
    title: study.title,
    description: study.description,
    game_count: study.games.length,
    scenario_count: study.scenarios.length,
  };
}

export const secondStudy: StudyDetail = {
  ...defaultSettings,
  id: 2,
  slug: 'pilot',
  title: 'Pilot study',
  description: 'A smaller pilot.',
  games: [{ id: 31, name: 'Puzzle Drop', pace: 'slow', genre: 'puzzle' }],
  scenarios: [
    {
      id: 41,
      code: 'B',
      label: 'Reference',
      position: 0,
      is_baseline: true,
      upstream: { delay_ms: 0, jitter_ms: 0, loss_pct: 0 },
      downstream: { delay_ms: 0, jitter_ms: 0, loss_pct: 0 },
    },
  ],
};
