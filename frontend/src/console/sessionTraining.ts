/**
 * Training slots and multi-item ratings in the session console (issue 15). Local types until
 * schema.d.ts carries them: an order entry gains `training`, a rating `values`, `training`
 * and `response_ms` (its `score` is the legacy single ACR value).
 */
import type { OrderEntry, Rating, Session } from '../api';

export type TrainingOrderEntry = OrderEntry & { training?: boolean };
export type ItemRating = Rating & { values?: Record<string, number> | null; training?: boolean; response_ms?: number | null };

/** True when the 1-based slot `position` of the session's order is a training slot. */
export function isTrainingSlot(session: Session, position: number | null): boolean {
  if (position === null) return false;
  const entry: TrainingOrderEntry | undefined = session.order[position - 1];
  return entry?.training === true;
}

export function trainingSlotCount(session: Session): number {
  return session.order.filter((entry: TrainingOrderEntry) => entry.training === true).length;
}

/** A rating in one short line: "4" for one item, "overall 4 · input_quality 5.2 · …" for several. */
export function ratingText(rating: Rating): string {
  const { values } = rating as ItemRating;
  // `score` goes once the schema has `values`; read it loosely meanwhile.
  const score: unknown = (rating as { score?: unknown }).score;
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return typeof score === 'number' ? String(score) : '';
  if (entries.length === 1) return String(entries[0]?.[1]);
  return entries.map(([key, value]) => `${key} ${value}`).join(' · ');
}
