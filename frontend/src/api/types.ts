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

// --- researcher console -------------------------------------------------------------------

export type OrderPolicy = 'random' | 'latin_square';
/** Language of the participant's screens. */
export type StudyLanguage = 'en' | 'de';

/** `GET /api/v1/auth/me/` — the signed-in researcher (any account; staff is not needed). */
export interface Researcher {
  id: number;
  username: string;
  is_staff: boolean;
}
export type QuestionKind = 'choice' | 'text' | 'integer' | 'boolean';

/** A study question (the pre/post questionnaire beyond the built-in consent/age/skill). */
export interface Question {
  key: string;
  phase: 'pre' | 'post';
  kind: QuestionKind;
  text: string;
  choices?: string[];
  min?: number;
  max?: number;
  required: boolean;
}

/** `GET /api/v1/studies/{id}/` with its writable settings. */
export interface StudyFull extends StudyDetail {
  owner: string | null;
  version: number;
  scale_labels: string[];
  seconds_per_scenario: number;
  free_play_minutes: number;
  order_policy: OrderPolicy;
  retest_round: boolean;
  questionnaire: Question[];
  language: StudyLanguage;
}

export interface Station {
  id: number;
  name: string;
  agent_url: string;
  topology: string;
  notes: string;
  last_checked_at: string | null;
  last_check_ok: boolean | null;
  last_check_message: string;
  agent_capabilities: AgentCapabilities | null;
  busy_with_session: number | null;
}

/** What the netem agent reports about itself (GET /v1/capabilities of the agent). */
export interface AgentCapabilities {
  backend?: string;
  topology?: Record<string, unknown>;
  interfaces?: { name: string; up?: boolean; kind?: string; mtu?: number }[];
  configured_interfaces_present?: Record<string, boolean>;
  profile_fields?: string[];
  lease?: { default_seconds?: number; max_seconds?: number };
  [key: string]: unknown;
}

/** `POST /api/v1/stations/{id}/apply-baseline/` — the neutral profile as the agent verified it. */
export interface BaselineResult {
  station: Station;
  requested_profile: { upstream: Impairment; downstream: Impairment };
  verified_profile: { upstream: Impairment; downstream: Impairment };
  installed: InstalledProfile;
  /** `dry-run`: the agent records kernel operations instead of running them. */
  backend: string | null;
  kernel: Record<string, unknown> | null;
  lease_seconds: number;
  lease_expires_at: string | null;
}

export type Skill = 'low' | 'medium' | 'high';

export interface Participant {
  id: number;
  study: number;
  code: string;
  consent_at: string | null;
  age: number | null;
  skill: Skill | '';
  genre_preferences: Record<string, boolean>;
  created_at: string;
}

export type SessionState =
  | 'created'
  | 'questionnaire'
  | 'free_play'
  | 'applying'
  | 'playing'
  | 'rating'
  | 'post_questions'
  | 'completed'
  | 'paused'
  | 'aborted';

export interface Rating {
  id: number;
  session: number;
  scenario: number;
  scenario_code: string;
  position: number;
  round: number;
  score: number;
  scenario_started_at: string | null;
  scenario_ended_at: string | null;
  rated_at: string;
  applied_profile: InstalledProfile | null;
  idempotency_key: string;
  source: string;
}

export interface Answer {
  key: string;
  phase: 'pre' | 'post';
  value: unknown;
  answered_at: string;
}

/** The verified state the agent read back from the kernel, per direction. */
export type InstalledProfile = Record<string, Partial<Impairment> & Record<string, unknown>>;

export interface OrderEntry {
  scenario: number;
  code: string;
  round?: number;
}

/** `GET /api/v1/sessions/{id}/` — the researcher's full view (polled by the console). */
export interface Session {
  id: number;
  study: number;
  study_version: number;
  participant: number;
  participant_code: string;
  game: number;
  game_name: string;
  station: number | null;
  station_name: string | null;
  state: SessionState;
  revision: number;
  paused_from: SessionState | '';
  paused_at: string | null;
  message: string;
  order_policy: string;
  seed: number;
  latin_square_row: number | null;
  order: OrderEntry[];
  position: number | null;
  scenario_count: number;
  current_scenario: {
    id: number;
    code: string;
    label: string;
    round: number;
    requested_profile: { upstream: Impairment; downstream: Impairment };
  } | null;
  seconds_remaining: number | null;
  applied_profile: InstalledProfile | null;
  applied_at: string | null;
  lease_renewed_at: string | null;
  impairment_cleared_at: string | null;
  scenario_started_at: string | null;
  scenario_ended_at: string | null;
  step_started_at: string | null;
  imported: boolean;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  ratings: Rating[];
  answers: Answer[];
  participant_token: string;
  poll_interval_ms: number;
}

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed';

export interface AnalysisJob<R = unknown> {
  id: number;
  study: number;
  study_version: number;
  reliable_only: boolean;
  input_sha256: string;
  input_rows: number;
  state: JobState;
  progress: number;
  stage: string;
  result: R | null;
  error: string;
  warnings: string[];
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface ImportResult {
  sessions: number;
  ratings: number;
  participants_created: number;
}
