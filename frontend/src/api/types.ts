/**
 * Types of the QoE Lab REST API (`/api/v1/`): thin aliases of the types generated from the
 * backend's OpenAPI schema (`schema.d.ts`, `npm run api:types`; `make lint` fails on drift).
 *
 * Two adjustments, both stated here rather than scattered through the components:
 *  - {@link Complete}: a model serializer writes every field into a response, but the schema
 *    marks a field with a model default optional (the same serializer reads requests too);
 *  - {@link Refine}: a few JSON columns are `unknown` (or a loose dict) in the schema; their
 *    documented shape is spelled out below, next to the field.
 */
import type { components } from './schema';

type Schemas = components['schemas'];

/** A response body: every property present, recursively (arrays and nested objects). */
export type Complete<T> = T extends readonly (infer E)[]
  ? Complete<E>[]
  : T extends object
    ? { -readonly [K in keyof T]-?: Complete<T[K]> }
    : T;

/** `Base` with the properties of `Exact` replaced by their precise types. */
export type Refine<Base, Exact> = Omit<Base, keyof Exact> & Exact;

export type Pace = Schemas['PaceEnum'];
export type OrderPolicy = Schemas['OrderPolicyEnum'];
/** Language of the participant's screens. */
export type StudyLanguage = Schemas['LanguageEnum'];
export type QuestionKind = Schemas['QuestionKindEnum'];
export type Skill = Schemas['SkillEnum'];
export type SessionState = Schemas['SessionStateEnum'];
export type JobState = Schemas['AnalysisJobStateEnum'];

/** Network impairment applied in one direction of a scenario. */
export type Impairment = Complete<Schemas['Impairment']>;
export type Game = Complete<Schemas['Game']>;
/** `upstream`: client → server; `downstream`: server → client. */
export type Scenario = Complete<Schemas['Scenario']>;
/** `GET /api/v1/studies/` item. */
export type StudySummary = Complete<Schemas['StudySummary']>;
/**
 * A study question (the pre/post questionnaire beyond the built-in consent/age/skill). Not
 * {@link Complete}: it is a plain serializer over a stored dict, which omits an absent optional key.
 */
export type Question = Schemas['Question'];
/** `GET /api/v1/studies/{id}/` — scenarios ordered by position, with the writable settings. */
export type StudyDetail = Refine<Complete<Schemas['StudyDetail']>, { questionnaire: Question[] }>;
/** `GET /api/v1/auth/me/` — the signed-in researcher (any account; staff is not needed). */
export type Researcher = Complete<Schemas['Researcher']>;
export type Participant = Complete<Schemas['Participant']>;

/** Error body returned by the API with a 4xx/5xx status. */
export type ApiErrorBody = Schemas['Detail'];

/** The verified state the agent read back from the kernel, per direction. */
export type InstalledProfile = Record<string, Partial<Impairment> & Record<string, unknown>>;

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

export type Station = Refine<Complete<Schemas['Station']>, { agent_capabilities: AgentCapabilities | null }>;

/** `POST /api/v1/stations/{id}/apply-baseline/` — the neutral profile as the agent verified it. */
export type BaselineResult = Refine<Complete<Schemas['BaselineResult']>, { station: Station; installed: InstalledProfile }>;

export type Rating = Refine<Complete<Schemas['Rating']>, { applied_profile: InstalledProfile | null }>;

export type Answer = Refine<Complete<Schemas['Answer']>, { phase: Question['phase'] }>;

/** One entry of a session's scenario order (`round` 2 in a retest round). */
export interface OrderEntry {
  scenario: number;
  code: string;
  round?: number;
  /** An ITU-T P.808 check: a trap (rated without a play) or the hidden reference's repeat. */
  qc?: 'trap' | 'hidden_reference';
}

/** The scenario being played, as `SessionSerializer.get_current_scenario` builds it. */
export interface CurrentScenario {
  id: number;
  code: string;
  label: string;
  round: number;
  requested_profile: { upstream: Impairment; downstream: Impairment };
}

/** `GET /api/v1/sessions/{id}/` — the researcher's full view (polled by the console). */
export type Session = Refine<
  Complete<Schemas['Session']>,
  {
    /** `""` unless the session is paused. */
    paused_from: SessionState | '';
    order: OrderEntry[];
    current_scenario: CurrentScenario | null;
    applied_profile: InstalledProfile | null;
    ratings: Rating[];
    answers: Answer[];
  }
>;

/** An analysis job; `R` is the shape of its `result` document. */
export type AnalysisJob<R = unknown> = Refine<Complete<Schemas['AnalysisJob']>, { result: R | null }>;

/** A ratings import (`POST /api/v1/studies/{id}/import/` answers with it; poll `GET /api/v1/import-jobs/{id}/`). */
export type ImportJob = Complete<Schemas['ImportJob']>;
