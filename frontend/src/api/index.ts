export { ApiError, fieldErrors, flattenErrors, formatHttpError, getJSON, getText, readCookie, sendJSON, sendText } from './client';
export * from './studies';
export type * from './types';
export { useJSON } from './useJSON';
export type { JSONState } from './useJSON';
