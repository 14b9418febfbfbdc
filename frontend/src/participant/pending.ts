/**
 * Ratings that could not be sent yet, kept in localStorage under
 * `qoelab:rating:<session>:<position>` until the server has them. A retry reuses the same
 * idempotency key, so the server stores the rating once however often it is sent.
 */

export interface PendingRating {
  session: number;
  position: number;
  score: number;
  idempotency_key: string;
  saved_at: string;
}

const PREFIX = 'qoelab:rating:';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // e.g. storage disabled: ratings are then only kept in memory
  }
}

export function pendingKey(session: number, position: number): string {
  return `${PREFIX}${session}:${position}`;
}

/** A random key for one rating (UUID v4 layout; works without a secure context). */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Keeps the rating until it is confirmed; returns the stored record. */
export function savePending(session: number, position: number, score: number, now = new Date()): PendingRating {
  const existing = loadPending(session).find((p) => p.position === position);
  // The same step keeps its key, so a resend after a reload is recognised as a retry.
  const record: PendingRating = {
    session,
    position,
    score,
    idempotency_key: existing?.score === score ? existing.idempotency_key : newIdempotencyKey(),
    saved_at: now.toISOString(),
  };
  storage()?.setItem(pendingKey(session, position), JSON.stringify(record));
  return record;
}

export function loadPending(session: number): PendingRating[] {
  const store = storage();
  if (!store) return [];
  const out: PendingRating[] = [];
  for (let i = 0; i < store.length; i += 1) {
    const key = store.key(i);
    if (!key?.startsWith(`${PREFIX}${session}:`)) continue;
    try {
      const value = JSON.parse(store.getItem(key) ?? 'null') as PendingRating | null;
      if (value && typeof value.score === 'number' && typeof value.position === 'number') out.push(value);
    } catch {
      store.removeItem(key);
    }
  }
  return out.sort((a, b) => a.position - b.position);
}

export function clearPending(session: number, position: number): void {
  storage()?.removeItem(pendingKey(session, position));
}
