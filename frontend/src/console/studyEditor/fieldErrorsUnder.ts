/** The API's field errors (flattened paths such as `rating_items.1.scale.max`) under one prefix. */
export type ErrorsAt = (path: string) => string | undefined;

/** Looks errors up relative to `prefix`; `rest()` lists those no field claimed, for a row-level message. */
export function errorsUnder(errors: Record<string, string>, prefix: string): { at: ErrorsAt; rest: (shown: readonly string[]) => string[] } {
  const full = (path: string) => (path ? `${prefix}.${path}` : prefix);
  return {
    at: (path) => errors[full(path)],
    rest: (shown) => {
      const claimed = new Set(shown.map(full));
      return Object.entries(errors)
        .filter(([key]) => (key === prefix || key.startsWith(`${prefix}.`)) && !claimed.has(key))
        .map(([key, message]) => (key === prefix ? message : `${key.slice(prefix.length + 1)}: ${message}`));
    },
  };
}
