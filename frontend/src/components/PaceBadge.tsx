import type { Pace } from '../api';

const PACE_LABEL: Record<Pace, string> = {
  fast: 'fast',
  medium: 'medium',
  slow: 'slow',
};

/** Pace class of a game; the text carries the meaning, the colour only reinforces it. */
export function PaceBadge({ pace }: { pace: Pace }) {
  return <span className={`badge badge--pace-${pace}`}>{PACE_LABEL[pace]}</span>;
}
