export { ApiError, formatHttpError, getJSON } from './client';
export { API_BASE, studiesPath, studyPath } from './studies';
export type * from './types';
export { useJSON } from './useJSON';
export type { JSONState } from './useJSON';
