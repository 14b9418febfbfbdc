/**
 * Training slots and multi-item ratings in the session console (issue 15): an order entry
 * carries `training` (api/types.ts's OrderEntry predates it), a rating its `values` by item.
 */
import type { OrderEntry, Rating, Session } from '../api';

type TrainingOrderEntry = OrderEntry & { training?: boolean };

/** True when the 1-based slot `position` of the session's order is a training slot. */
export function isTrainingSlot(session: Session, position: number | null): boolean {
  if (position === null) return false;
  const entry: TrainingOrderEntry | undefined = session.order[position - 1];
  return entry?.training === true;
}


/** A rating in one short line: "4" for one item, "overall 4 · input_quality 5.2 · …" for several. */
export function ratingText(rating: Rating): string {
  const entries = Object.entries(rating.values);
  if (entries.length === 0) return '';
  if (entries.length === 1) return String(entries[0]?.[1]);
  return entries.map(([key, value]) => `${key} ${value}`).join(' · ');
}
