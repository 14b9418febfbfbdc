import type { components } from './schema';

/** URL builders for the API endpoints. */

export const API_BASE = '/api/v1';

/** `GET` → `StudySummary[]` */
export const studiesPath = (): string => `${API_BASE}/studies/`;

/** `GET` → `StudyDetail` */
export const studyPath = (id: number): string => `${API_BASE}/studies/${id}/`;

export const gamesPath = (): string => `${API_BASE}/games/`;
export const gamePath = (id: number): string => `${API_BASE}/games/${id}/`;
export const scenariosPath = (): string => `${API_BASE}/scenarios/`;
export const scenarioPath = (id: number): string => `${API_BASE}/scenarios/${id}/`;
/** Researcher sign-in (Django session): `GET csrf/`, `POST login/`, `POST logout/`, `GET me/`. */
export const authPath = (endpoint: 'csrf' | 'login' | 'logout' | 'me'): string => `${API_BASE}/auth/${endpoint}/`;

export const stationsPath = (): string => `${API_BASE}/stations/`;
export const stationPath = (id: number): string => `${API_BASE}/stations/${id}/`;
/** `POST` → `BaselineResult` (409 while a session holds the station, 502 agent failure). */
export const stationApplyBaselinePath = (id: number): string => `${API_BASE}/stations/${id}/apply-baseline/`;
export const participantsPath = (study?: number): string =>
  study === undefined ? `${API_BASE}/participants/` : `${API_BASE}/participants/?study=${study}`;
export const sessionsPath = (study?: number): string =>
  study === undefined ? `${API_BASE}/sessions/` : `${API_BASE}/sessions/?study=${study}`;
export const sessionPath = (id: number): string => `${API_BASE}/sessions/${id}/`;
export const analysisJobsPath = (): string => `${API_BASE}/analysis-jobs/`;
export const analysisJobPath = (id: number): string => `${API_BASE}/analysis-jobs/${id}/`;
/** The tidy CSV a job analysed (immutable: the browser keeps it). */
export const analysisJobInputCsvPath = (id: number): string => `${API_BASE}/analysis-jobs/${id}/input-csv/`;
export const studyAnalysisPath = (id: number): string => `${API_BASE}/studies/${id}/analysis/`;
export const studyImportPath = (id: number): string => `${API_BASE}/studies/${id}/import/`;
export const importJobPath = (id: number): string => `${API_BASE}/import-jobs/${id}/`;
export const studyExportCsvPath = (id: number): string => `${API_BASE}/studies/${id}/export/csv/`;

/** `GET` → {@link FactorCatalog}: the impairment factor registry with its limits. */
export const factorsPath = (): string => `${API_BASE}/factors/`;
/** `POST` {@link DesignRequest} → {@link DesignResult} (`dry_run`: preview; else replaces the scenarios). */
export const studyDesignPath = (id: number): string => `${API_BASE}/studies/${id}/design/`;
/** `POST {slug, title}` → the clone's `StudyDetail` (games, scenarios, questionnaire, settings). */
export const studyClonePath = (id: number): string => `${API_BASE}/studies/${id}/clone/`;
/** `POST` a `qoelab.study/v1` document → the new study's `StudyDetail`. */
export const importDesignPath = (): string => `${API_BASE}/studies/import-design/`;

/*
 * Payloads of the study-design endpoints of issue 12: the types generated from the OpenAPI
 * schema (schema.d.ts), loosened where the editor sends or shows partial directions.
 */

type Schemas = components['schemas'];

export type DirectionKey = 'downstream' | 'upstream';

/** One factor of the registry (`netem_profile.factors.catalog()`): label, unit, limits, neutral value, KPI. */
export type FactorInfo = Schemas['Factor'];

/** `GET /api/v1/factors/`: the registry, the directions' names and the study's maximum of scenarios. */
export type FactorCatalog = Schemas['Factors'];

export type GilbertElliott = Schemas['GilbertElliott'];

/** A direction of a scenario as the API reads it back (every registry field of the agent's profile). */
export type DirectionProfile = Schemas['Direction'];

/** A scenario as the design endpoint returns it (no id yet); a stored scenario has the same shape. */
export interface DesignScenario {
  code: string;
  label: string;
  is_baseline: boolean;
  upstream: Partial<DirectionProfile>;
  downstream: Partial<DirectionProfile>;
}

export type DesignKind = Schemas['DesignKindEnum'];
export type DesignDirection = Schemas['FactorDirectionEnum'];

/** `POST /api/v1/studies/{id}/design/` body; the base may leave fields out (they are neutral). */
export interface DesignRequest {
  kind: DesignKind;
  factors: Schemas['DesignFactorRequest'][];
  base: { upstream: Partial<DirectionProfile>; downstream: Partial<DirectionProfile> };
  dry_run: boolean;
}

/** `POST /api/v1/studies/{id}/design/` answer: the count, the session length it implies, the scenarios. */
export type DesignResult = Schemas['DesignResult'];
