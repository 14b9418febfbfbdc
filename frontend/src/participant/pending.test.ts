import { afterEach, describe, expect, it } from 'vitest';

import { clearDraft, clearDraftsBefore, clearPending, draftKey, loadDraft, loadPending, newIdempotencyKey, pendingKey, saveDraft, savePending } from './pending';

afterEach(() => {
  localStorage.clear();
});

describe('pending ratings', () => {
  it('are kept per session and step until cleared', () => {
    const first = savePending(12, 3, { overall: 4, acceptance: 1 }, 1500, new Date('2026-01-01T10:00:00Z'));
    savePending(13, 1, { overall: 2 });
    expect(localStorage.getItem(pendingKey(12, 3))).not.toBeNull();
    expect(loadPending(12)).toEqual([first]);
    clearPending(12, 3);
    expect(loadPending(12)).toEqual([]);
    expect(loadPending(13)).toHaveLength(1);
  });

  it('keep their idempotency key and response time when saved again with the same values (a retry)', () => {
    const first = savePending(1, 5, { overall: 3, input_quality: 4.5 }, 2000);
    const again = savePending(1, 5, { input_quality: 4.5, overall: 3 }, 9000);
    expect(again.idempotency_key).toBe(first.idempotency_key);
    expect(again.response_ms).toBe(2000);
    const changed = savePending(1, 5, { overall: 3, input_quality: 4.6 }, 9000);
    expect(changed.idempotency_key).not.toBe(first.idempotency_key);
    expect(changed.response_ms).toBe(9000);
  });

  it('read a score kept by an older version as the item "overall"', () => {
    localStorage.setItem(pendingKey(4, 2), JSON.stringify({ session: 4, position: 2, score: 5, idempotency_key: 'k-12345678', saved_at: 'x' }));
    expect(loadPending(4)).toEqual([{ session: 4, position: 2, values: { overall: 5 }, response_ms: null, idempotency_key: 'k-12345678', saved_at: 'x' }]);
  });

  it('drop unreadable entries', () => {
    localStorage.setItem(pendingKey(2, 1), '{broken');
    expect(loadPending(2)).toEqual([]);
    expect(localStorage.getItem(pendingKey(2, 1))).toBeNull();
  });

  it('use UUID-shaped keys the backend accepts (8–100 characters)', () => {
    const key = newIdempotencyKey();
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('rating drafts', () => {
  it('store the first-shown time once and keep it across loads', () => {
    const draft = loadDraft(3, 1, 1000);
    expect(draft).toEqual({ shown_at: 1000, values: {} });
    saveDraft(3, 1, { shown_at: 1000, values: { overall: 2 } });
    expect(loadDraft(3, 1, 5000)).toEqual({ shown_at: 1000, values: { overall: 2 } });
    expect(loadDraft(3, 2, 5000).shown_at).toBe(5000);
    clearDraft(3, 1);
    expect(localStorage.getItem(draftKey(3, 1))).toBeNull();
  });

  it('of slots the session is past are dropped', () => {
    for (const position of [1, 2, 10]) saveDraft(3, position, { shown_at: 1, values: {} });
    saveDraft(4, 1, { shown_at: 1, values: {} });
    clearDraftsBefore(3, 10);
    expect([1, 2, 10].map((p) => localStorage.getItem(draftKey(3, p)) !== null)).toEqual([false, false, true]);
    clearDraftsBefore(3, Infinity);
    expect(localStorage.getItem(draftKey(3, 10))).toBeNull();
    expect(localStorage.getItem(draftKey(4, 1))).not.toBeNull();
  });

  it('are not mistaken for pending ratings', () => {
    saveDraft(3, 1, { shown_at: 1, values: { overall: 2 } });
    expect(loadPending(3)).toEqual([]);
  });
});
