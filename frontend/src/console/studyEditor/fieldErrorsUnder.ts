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

const PATH_PREFIX = /^([a-z_]+(?:\[\d+\]|\.[a-z_]+)*): (.+)$/s;

/**
 * The server names the field in the message (`rating_items[1].scale.max: must be greater
 * than min (1)`, from qoe_analysis.scales): file each such message under that path
 * (`rating_items.1.scale.max`), so it appears next to its field; other messages stay put.
 */
export function placeFieldErrors(errors: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(errors)) {
    const match = PATH_PREFIX.exec(message);
    const path = match?.[1]?.replace(/\[(\d+)\]/g, '.$1');
    if (match && path && (key === '' || path === key || path.startsWith(`${key}.`))) out[path] = match[2] ?? message;
    else out[key] = message;
  }
  return out;
}
