import { useCallback, useEffect, useState } from 'react';

import { getJSON } from './client';

export type JSONState<T> =
  | { status: 'idle'; reload: () => void }
  | { status: 'loading'; reload: () => void }
  | { status: 'error'; error: Error; reload: () => void }
  | { status: 'success'; data: T; reload: () => void };

type Settled<T> = { status: 'error'; error: Error } | { status: 'success'; data: T };

/**
 * Fetches `path` with {@link getJSON} whenever it changes; `null` means "nothing to fetch yet".
 * In-flight requests are aborted when the path changes or the component unmounts, so a slow
 * response can never overwrite a newer one.
 */
export function useJSON<T>(path: string | null): JSONState<T> {
  const [attempt, setAttempt] = useState(0);
  const [settled, setSettled] = useState<{ key: string; result: Settled<T> } | null>(null);
  const key = path === null ? null : `${attempt}:${path}`;
  const reload = useCallback(() => {
    setAttempt((n) => n + 1);
  }, []);

  useEffect(() => {
    if (key === null || path === null) return;
    const controller = new AbortController();
    getJSON<T>(path, { signal: controller.signal }).then(
      (data) => {
        if (controller.signal.aborted) return;
        setSettled({ key, result: { status: 'success', data } });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const err = error instanceof Error ? error : new Error(String(error));
        setSettled({ key, result: { status: 'error', error: err } });
      },
    );
    return () => {
      controller.abort();
    };
  }, [key, path]);

  if (key === null) return { status: 'idle', reload };
  if (settled?.key !== key) return { status: 'loading', reload };
  return { ...settled.result, reload };
}
