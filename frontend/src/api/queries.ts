/**
 * Server state through TanStack Query: one query per API path, keyed by the path's segments
 * so that a mutation can invalidate a whole family (`['sessions']`: every sessions list and
 * every session).
 */
import { keepPreviousData, QueryClient, useQuery } from '@tanstack/react-query';
import type { QueryKey, UseQueryOptions, UseQueryResult } from '@tanstack/react-query';

import { getJSON } from './client';
import { API_BASE } from './studies';

/**
 * The client of the researcher app. No automatic retry and no refetch on window focus: a
 * failed load shows its error at once with a Retry button, as the console always did, and
 * polling is explicit (`refetchInterval`) where the API documents an interval.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, refetchIntervalInBackground: true },
      mutations: { retry: false },
    },
  });
}

/**
 * The query key of an API path: the segments after `/api/v1/`, then the query parameters
 * as one object. `/api/v1/sessions/?study=1` → `['sessions', {study: '1'}]`,
 * `/api/v1/sessions/7/` → `['sessions', '7']`.
 */
export function apiKey(path: string): QueryKey {
  const url = new URL(path, 'http://api.invalid');
  const segments = url.pathname.replace(API_BASE, '').split('/').filter(Boolean);
  const params = Object.fromEntries(url.searchParams);
  return Object.keys(params).length > 0 ? [...segments, params] : segments;
}

export interface ApiQueryOptions<T> {
  /** Poll: milliseconds between loads, or a function of the last data (e.g. the interval the API sends). */
  refetchInterval?: number | ((data: T | undefined) => number | false);
  /**
   * Keep showing the previous key's data while another key loads (a list whose filter
   * changed). Off for a single object: showing another object's data would mislead.
   */
  keepPrevious?: boolean;
}

/** GETs `path` (`null`: nothing to load yet) as a query; data stays while it reloads. */
export function useApiQuery<T>(path: string | null, options: ApiQueryOptions<T> = {}): UseQueryResult<T> {
  const { refetchInterval, keepPrevious = false } = options;
  const query: UseQueryOptions<T, Error, T> = {
    queryKey: path === null ? ['disabled'] : apiKey(path),
    queryFn: ({ signal }) => getJSON<T>(path ?? '', { signal }),
    enabled: path !== null,
  };
  if (keepPrevious) query.placeholderData = keepPreviousData;
  if (typeof refetchInterval === 'number') query.refetchInterval = refetchInterval;
  else if (refetchInterval) query.refetchInterval = (q) => refetchInterval(q.state.data);
  return useQuery(query);
}
