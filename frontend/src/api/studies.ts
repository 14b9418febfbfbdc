/** URL builders for the study endpoints. */

export const API_BASE = '/api/v1';

/** `GET` → `StudySummary[]` */
export const studiesPath = (): string => `${API_BASE}/studies/`;

/** `GET` → `StudyDetail` */
export const studyPath = (id: number): string => `${API_BASE}/studies/${id}/`;
