/** What every step screen shares: its props, the focused heading, the round and the countdown. */
import { useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';

import type { Lang } from '../../shared/participantLink';
import { formatClock } from '../../shared/time';
import type { ParticipantApi, ParticipantView } from '../api';
import type { Translate } from '../i18n';
import type { ItemValues } from '../items';
import type { PendingRating } from '../pending';

export interface ScreenProps {
  view: ParticipantView;
  receivedAt: number;
  t: Translate;
  lang: Lang;
  pending: PendingRating[];
  sending: boolean;
  offline: boolean;
  /** Keep and send the rating of slot `position`; `responseMs`: screen first shown → submit. */
  onRate: (position: number, values: ItemValues, responseMs: number) => void;
  act: (call: (api: ParticipantApi) => Promise<ParticipantView>) => Promise<boolean>;
}

/** The screen's heading; it takes the focus when the step changes (screen readers follow). */
export function Heading({ children, stepKey }: { children: ReactNode; stepKey: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [stepKey]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

export function Message({ title, text, stepKey, children }: { title: string; text: string; stepKey: string; children?: ReactNode }) {
  return (
    <main className="p-main p-main--center">
      <Heading stepKey={stepKey}>{title}</Heading>
      {children}
      <p className="p-lead">{text}</p>
    </main>
  );
}

/** "Training round k of n" in the training phase, else "Round k of n" (counted without training). */
export function Round({ view, t }: { view: ParticipantView; t: Translate }) {
  if (view.position === null) return null;
  const n = view.phase_position ?? view.position;
  const total = view.phase_count ?? view.scenario_count;
  return (
    <p className={`p-round${view.phase === 'training' ? ' p-round--training' : ''}`}>
      {t(view.phase === 'training' ? 'trainingRoundOf' : 'roundOf', { n, total })}
    </p>
  );
}

export function Countdown({ seconds, t }: { seconds: number | null; t: Translate }) {
  if (seconds === null) return null;
  return (
    <p className="p-countdown">
      <span className="p-countdown__label">{t('timeLeft')}</span>
      {/* Read out on demand only: a live region ticking every second would drown everything else. */}
      <span className="p-countdown__value" data-testid="countdown">
        {formatClock(seconds)}
      </span>
    </p>
  );
}
export type Call = Parameters<ScreenProps['act']>[0];

/** A busy flag around `act`; a failure is shown by the session's error banner. */
export function useSend(act: ScreenProps['act']): [boolean, (call: Call) => Promise<void>] {
  const [busy, setBusy] = useState(false);
  const send = async (call: Call) => {
    setBusy(true);
    try {
      await act(call);
    } catch {
      /* shown by the session's error banner */
    } finally {
      setBusy(false);
    }
  };
  return [busy, send];
}
