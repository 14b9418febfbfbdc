import { useEffect, useMemo, useState } from 'react';

/**
 * `value` once it has stayed the same (by its JSON) for `delay` ms: a live preview asks the
 * server after typing pauses, not on every key. Equal values keep one reference.
 */
export function useDebounced<T>(value: T, delay: number): T {
  const text = JSON.stringify(value);
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSettled(text);
    }, delay);
    return () => {
      clearTimeout(timer);
    };
  }, [text, delay]);
  return useMemo(() => JSON.parse(settled) as T, [settled]);
}
