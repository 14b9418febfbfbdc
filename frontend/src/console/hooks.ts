export { useCountdown } from '../shared/useCountdown';
import { useCallback, useEffect, useRef, useState } from 'react';

import { getJSON } from '../api';

export interface Polled<T> {
  data: T | null;
  error: Error | null;
  /** `Date.now()` when `data` arrived: countdowns extrapolate from it. */
  receivedAt: number;
  refresh: () => void;
  /** Replace the data with a fresher copy (e.g. the body of a POST that changed it). */
  replace: (data: T) => void;
}

/**
 * Fetches `path` now and then every `intervalMs` (the interval the API documents), keeping
 * the last good data while a request fails, so a flaky connection does not blank the screen.
 */
export function usePolled<T>(path: string | null, intervalMs: number | null): Polled<T> {
  const [state, setState] = useState<{ path: string | null; data: T | null; error: Error | null; receivedAt: number }>({
    path,
    data: null,
    error: null,
    receivedAt: 0,
  });
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => {
    setTick((n) => n + 1);
  }, []);
  const replace = useCallback(
    (data: T) => {
      setState({ path, data, error: null, receivedAt: Date.now() });
    },
    [path],
  );

  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () => {
      getJSON<T>(path, { signal: controller.signal }).then(
        (data) => {
          if (controller.signal.aborted) return;
          setState({ path, data, error: null, receivedAt: Date.now() });
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          setState((previous) => ({
            ...previous,
            path,
            data: previous.path === path ? previous.data : null,
            error: error instanceof Error ? error : new Error(String(error)),
          }));
        },
      ).finally(() => {
        if (!controller.signal.aborted && intervalMs !== null) timer = setTimeout(load, intervalMs);
      });
    };
    load();
    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [path, intervalMs, tick]);

  const current = state.path === path;
  return {
    data: current ? state.data : null,
    error: current ? state.error : null,
    receivedAt: state.receivedAt,
    refresh,
    replace,
  };
}

/** Runs async actions one at a time, exposing `busy` and the last error. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async <R,>(action: () => Promise<R>): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (caught) {
      if (mounted.current) setError(caught);
      return undefined;
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: () => { setError(null); } };
}
