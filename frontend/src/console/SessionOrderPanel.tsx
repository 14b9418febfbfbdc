/** The session's scenario order with each slot's rating; training slots are marked (issue 15). */
import type { Session } from '../api';
import './sessionOrder.css';
import { isTrainingSlot, ratingText } from './sessionTraining';

export function OrderPanel({ session }: { session: Session }) {
  const byPosition = new Map(session.ratings.map((r) => [r.position, r]));
  const current = session.position;
  const training = session.training_count;
  return (
    <section className="card" aria-labelledby="order-heading">
      <h3 id="order-heading" className="card__title">
        Scenario order and ratings
      </h3>
      <ol className="order" aria-label="Scenario order">
        {session.order.map((entry, index) => {
          const position = index + 1;
          const rating = byPosition.get(position);
          const status = rating ? 'done' : position === current ? 'current' : 'todo';
          const isTraining = isTrainingSlot(session, position);
          return (
            <li
              key={position}
              className={`order__item order__item--${status}${isTraining ? ' order__item--training' : ''}`}
              aria-current={status === 'current' ? 'step' : undefined}
            >
              <span className="order__pos">{position}</span>
              <code>{entry.code}</code>
              {isTraining && <span className="order__training">training</span>}
              {entry.qc && <span className="order__training">{entry.qc === 'trap' ? 'trap (no play)' : 'hidden reference'}</span>}
              <span className="order__score">{rating ? `rated ${ratingText(rating)}` : status === 'current' ? 'now' : ''}</span>
            </li>
          );
        })}
      </ol>
      <p className="muted">
        {session.ratings.length} of {session.scenario_count} rated
        {training > 0 ? ` (the first ${training} ${training === 1 ? 'is a training slot' : 'are training slots'}, excluded from the analysis)` : ''}.
      </p>
    </section>
  );
}
