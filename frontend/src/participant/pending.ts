/**
 * What the participant entered, kept in localStorage until the server has it:
 *  - a submitted rating that could not be sent yet, under `qoelab:rating:<session>:<position>`
 *    (a retry reuses the same idempotency key, so the server stores the rating once however
 *    often it is sent);
 *  - the rating screen's draft, under `qoelab:draft:<session>:<position>`: the values entered
 *    so far and when the screen was first shown (the start of `response_ms`), so that a
 *    reload neither loses a value nor restarts the clock.
 */
import type { ItemValues } from './items';

export interface PendingRating {
  session: number;
  position: number;
  values: ItemValues;
  /** Rating screen first shown → submit (client clock), or null when unknown. */
  response_ms: number | null;
  idempotency_key: string;
  saved_at: string;
}

/** A record kept by a version before rating items: one ACR score of the item "overall". */
interface LegacyPendingRating {
  session: number;
  position: number;
  score: number;
  idempotency_key: string;
  saved_at: string;
}

const PREFIX = 'qoelab:rating:';
const DRAFT_PREFIX = 'qoelab:draft:';

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

/** The values in a fixed key order, so equal values compare equal as text. */
function canonical(values: ItemValues): string {
  return JSON.stringify(Object.entries(values).sort(([a], [b]) => a.localeCompare(b)));
}

/** Keeps the rating until it is confirmed; returns the stored record. */
export function savePending(
  session: number,
  position: number,
  values: ItemValues,
  responseMs: number | null = null,
  now = new Date(),
): PendingRating {
  const existing = loadPending(session).find((p) => p.position === position);
  // The same step keeps its key, so a resend after a reload is recognised as a retry.
  const same = existing !== undefined && canonical(existing.values) === canonical(values);
  const record: PendingRating = {
    session,
    position,
    values,
    response_ms: same ? existing.response_ms : responseMs,
    idempotency_key: same ? existing.idempotency_key : newIdempotencyKey(),
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
      const value = readPending(JSON.parse(store.getItem(key) ?? 'null'));
      if (value) out.push(value);
      else store.removeItem(key);
    } catch {
      store.removeItem(key);
    }
  }
  return out.sort((a, b) => a.position - b.position);
}

/** Stored JSON is untrusted: values must be an object of numbers. */
function isValues(raw: unknown): raw is ItemValues {
  return typeof raw === 'object' && raw !== null && Object.values(raw).every((v) => typeof v === 'number');
}

function readPending(raw: unknown): PendingRating | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const value = raw as Partial<PendingRating> & Partial<LegacyPendingRating>;
  if (typeof value.position !== 'number' || typeof value.idempotency_key !== 'string') return null;
  const values = isValues(value.values) ? value.values : typeof value.score === 'number' ? { overall: value.score } : null;
  if (values === null) return null;
  return {
    session: value.session ?? 0,
    position: value.position,
    values,
    response_ms: typeof value.response_ms === 'number' ? value.response_ms : null,
    idempotency_key: value.idempotency_key,
    saved_at: value.saved_at ?? '',
  };
}

export function clearPending(session: number, position: number): void {
  storage()?.removeItem(pendingKey(session, position));
}

/** The rating screen's unsent state: the values entered so far and the first time it was shown. */
export interface RatingDraft {
  shown_at: number;
  values: ItemValues;
}

export function draftKey(session: number, position: number): string {
  return `${DRAFT_PREFIX}${session}:${position}`;
}

/**
 * The draft of a rating screen; the first call stores `now` as the time the screen was first
 * shown (later calls, e.g. after a reload, keep it).
 */
export function loadDraft(session: number, position: number, now: number): RatingDraft {
  const store = storage();
  const key = draftKey(session, position);
  try {
    const raw = JSON.parse(store?.getItem(key) ?? 'null') as { shown_at?: unknown; values?: unknown } | null;
    if (raw && typeof raw.shown_at === 'number' && isValues(raw.values)) {
      return { shown_at: raw.shown_at, values: raw.values };
    }
  } catch {
    /* unreadable: start again below */
  }
  const draft: RatingDraft = { shown_at: now, values: {} };
  saveDraft(session, position, draft);
  return draft;
}

export function saveDraft(session: number, position: number, draft: RatingDraft): void {
  try {
    storage()?.setItem(draftKey(session, position), JSON.stringify(draft));
  } catch {
    /* storage full: the values stay on screen for this page */
  }
}

export function clearDraft(session: number, position: number): void {
  storage()?.removeItem(draftKey(session, position));
}

/** Drops the drafts of slots before `position` (the server is past them; Infinity: all). */
export function clearDraftsBefore(session: number, position: number): void {
  const store = storage();
  if (!store) return;
  const prefix = `${DRAFT_PREFIX}${session}:`;
  const stale: string[] = [];
  for (let i = 0; i < store.length; i += 1) {
    const key = store.key(i);
    if (key?.startsWith(prefix) && Number(key.slice(prefix.length)) < position) stale.push(key);
  }
  for (const key of stale) store.removeItem(key);
}
