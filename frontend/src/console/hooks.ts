import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { QueryKey } from '@tanstack/react-query';
import { useCallback } from 'react';

export { useCountdown } from '../shared/useCountdown';

/**
 * Runs async actions (the console's mutations) one at a time as a TanStack mutation,
 * exposing `busy` and the last error. `run(action, invalidates)` resolves to the action's
 * result, or `undefined` when it failed (the error is in `error`); after a success the
 * queries under each key of `invalidates` reload, keeping their data meanwhile.
 */
export function useAction() {
  const queryClient = useQueryClient();
  const mutation = useMutation<unknown, unknown, { action: () => Promise<unknown>; invalidates: readonly QueryKey[] }>({
    mutationFn: ({ action }) => action(),
    onSuccess: async (_result, { invalidates }) => {
      await Promise.all(invalidates.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
  });
  const { mutateAsync, reset } = mutation;
  const run = useCallback(
    async <R,>(action: () => Promise<R>, invalidates: readonly QueryKey[] = []): Promise<R | undefined> => {
      try {
        return (await mutateAsync({ action, invalidates })) as R;
      } catch {
        return undefined;
      }
    },
    [mutateAsync],
  );
  return { busy: mutation.isPending, error: mutation.error, run, clearError: reset };
}
