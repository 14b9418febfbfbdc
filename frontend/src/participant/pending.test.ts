import { afterEach, describe, expect, it } from 'vitest';

import { clearPending, loadPending, newIdempotencyKey, pendingKey, savePending } from './pending';

afterEach(() => {
  localStorage.clear();
});

describe('pending ratings', () => {
  it('are kept per session and step until cleared', () => {
    const first = savePending(12, 3, 4, new Date('2026-01-01T10:00:00Z'));
    savePending(13, 1, 2);
    expect(localStorage.getItem(pendingKey(12, 3))).not.toBeNull();
    expect(loadPending(12)).toEqual([first]);
    clearPending(12, 3);
    expect(loadPending(12)).toEqual([]);
    expect(loadPending(13)).toHaveLength(1);
  });

  it('keep their idempotency key when saved again with the same score (a retry)', () => {
    const first = savePending(1, 5, 3);
    const again = savePending(1, 5, 3);
    expect(again.idempotency_key).toBe(first.idempotency_key);
    const changed = savePending(1, 5, 4);
    expect(changed.idempotency_key).not.toBe(first.idempotency_key);
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
