export { ApiError, fieldErrors, flattenErrors, formatHttpError, getJSON, getText, readCookie, sendJSON, sendText } from './client';
export * from './studies';
export type * from './types';
export { apiKey, createQueryClient, useApiQuery } from './queries';
export type { ApiQueryOptions } from './queries';
