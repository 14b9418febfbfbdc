/** Types of the QoE Lab REST API (`/api/v1/`). Keep in sync with the Django serializers. */

export type Pace = 'fast' | 'medium' | 'slow';

/** Network impairment applied in one direction of a scenario. */
export interface Impairment {
  delay_ms: number;
  jitter_ms: number;
  loss_pct: number;
}

/** `GET /api/v1/studies/` item. */
export interface StudySummary {
  id: number;
  slug: string;
  title: string;
  description: string;
  game_count: number;
  scenario_count: number;
}

export interface Game {
  id: number;
  name: string;
  pace: Pace;
  /** Sent by the backend serializer; not part of the minimal contract. */
  genre?: string;
}

export interface Scenario {
  id: number;
  code: string;
  label: string;
  position: number;
  is_baseline: boolean;
  /** client → server */
  upstream: Impairment;
  /** server → client */
  downstream: Impairment;
}

/** `GET /api/v1/studies/{id}/` — scenarios are ordered by position. */
export interface StudyDetail {
  id: number;
  slug: string;
  title: string;
  description: string;
  games: Game[];
  scenarios: Scenario[];
}

/** Error body returned by the API with a 4xx/5xx status. */
export interface ApiErrorBody {
  detail: string;
}
