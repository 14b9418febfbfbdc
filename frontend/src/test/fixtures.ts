import type { StudyDetail, StudySummary } from '../api';
import { OVERALL } from '../participant/ratingItems.fixture';

/** A scenario direction as the API reads it back: every agent field, the given ones set. */
const direction = (delay_ms: number, jitter_ms: number, loss_pct: number) => ({
  delay_ms,
  jitter_ms,
  jitter_distribution: 'normal' as const,
  delay_correlation_pct: 0,
  loss_pct,
  loss_correlation_pct: 0,
  gilbert_elliott: null,
  rate_kbit: 0,
  reorder_pct: 0,
  reorder_correlation_pct: 0,
  duplicate_pct: 0,
  corrupt_pct: 0,
});

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
  rating_items: [OVERALL],
  acceptance: { item: 'overall', min: 3 },
  training: { enabled: false, scenarios: [], seconds: 60 },
  quality_control: { traps: [], hidden_reference: null },
  min_response_ms: 1000,
  analysis_only: false,
} satisfies Partial<StudyDetail>;

export const exampleStudy: StudyDetail = {
  ...defaultSettings,
  id: 1,
  slug: 'example',
  title: 'Example cloud-gaming study',
  description: 'How delay, jitter and loss affect perceived quality across game paces.',
  // free play + scenarios × (seconds + 20 s rating allowance) / 60 (docs/api.md, Study designs)
  session_minutes: 10.5,
  rehearsal: false,
  ratings_by_backend: {},
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
      upstream: direction(0, 0, 0),
      downstream: direction(0, 0, 0),
    },
    {
      id: 22,
      code: 'D1',
      label: 'Moderate delay',
      position: 1,
      is_baseline: false,
      upstream: direction(25, 2, 0),
      downstream: direction(50, 5, 0.5),
    },
    {
      id: 23,
      code: 'L1',
      label: 'Lossy downlink',
      position: 2,
      is_baseline: false,
      upstream: direction(10, 1, 0.25),
      downstream: direction(15, 3, 2),
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
  session_minutes: 6.8,
  rehearsal: false,
  ratings_by_backend: {},
  games: [{ id: 31, name: 'Puzzle Drop', pace: 'slow', genre: 'puzzle' }],
  scenarios: [
    {
      id: 41,
      code: 'B',
      label: 'Reference',
      position: 0,
      is_baseline: true,
      upstream: direction(0, 0, 0),
      downstream: direction(0, 0, 0),
    },
  ],
};
