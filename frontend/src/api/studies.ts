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
export const studyAnalysisPath = (id: number): string => `${API_BASE}/studies/${id}/analysis/`;
export const studyImportPath = (id: number): string => `${API_BASE}/studies/${id}/import/`;
export const studyExportCsvPath = (id: number): string => `${API_BASE}/studies/${id}/export/csv/`;
