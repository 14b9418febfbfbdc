/** Free play before the rounds, and a round being played: countdowns, nothing to answer. */
import { useCountdown } from '../../shared/useCountdown';
import { Countdown, Heading, Round, useSend } from './common';
import type { ScreenProps } from './common';

export function FreePlay({ view, receivedAt, t, act }: ScreenProps) {
  const remaining = useCountdown(view.seconds_remaining, receivedAt);
  const [busy, send] = useSend(act);
  const start = () => send((api) => api.finishFreePlay());
  return (
    <main className="p-main p-main--center">
      <Heading stepKey="free_play">{t('freePlayTitle')}</Heading>
      <p className="p-lead">{t('freePlayText')}</p>
      {!view.can_continue && <Countdown seconds={remaining} t={t} />}
      {view.can_continue && (
        <>
          <p role="status">{t('freePlayDone')}</p>
          <button type="button" className="p-button p-button--primary p-button--large" disabled={busy} onClick={() => void start()}>
            {t('startRounds')}
          </button>
        </>
      )}
    </main>
  );
}

export function Playing({ view, receivedAt, t }: ScreenProps) {
  const remaining = useCountdown(view.seconds_remaining, receivedAt);
  return (
    <main className="p-main p-main--center">
      <Heading stepKey={`playing-${view.position ?? 0}`}>{t('playTitle')}</Heading>
      <Round view={view} t={t} />
      <p className="p-lead">{t('playText')}</p>
      <Countdown seconds={remaining} t={t} />
    </main>
  );
}
