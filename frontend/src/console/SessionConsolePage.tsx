import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';

import { apiKey, sendJSON, sessionPath, studyPath, useApiQuery } from '../api';
import type { Impairment, InstalledProfile, Session, StudyDetail } from '../api';
import { ErrorMessage, Loading } from '../components/StatusMessage';
import { formatNumber } from '../components/format';
import { participantLink } from '../shared/participantLink';
import type { Lang } from '../shared/participantLink';
import { formatClock } from '../shared/time';
import { useAction, useCountdown } from './hooks';
import { QrCode } from './QrCode';
import { SessionDryRunBanner } from './provenance';
import { OrderPanel } from './SessionOrderPanel';
import { isTrainingSlot } from './sessionTraining';
import { agentProblem, participantSees, STATE_LABEL } from './sessionText';
import { ActionError, useStudyId } from './ui';

const DEFAULT_POLL_MS = 1000;

/** `/console/sessions/:id` — the researcher's live console of one session. */
export function SessionConsolePage() {
  const sessionId = useStudyId(useParams().sessionId);
  const path = sessionId === null ? null : sessionPath(sessionId);
  // Polled at the interval the API sends with each session; the last good copy stays on an error.
  const polled = useApiQuery<Session>(path, { refetchInterval: (data) => data?.poll_interval_ms ?? DEFAULT_POLL_MS });
  const queryClient = useQueryClient();
  const session = polled.data;

  if (sessionId === null) return <ErrorMessage title="Not a session" error={new Error('invalid session id')} />;
  if (!session) {
    if (polled.error) return <ErrorMessage title="Could not load the session" error={polled.error} onRetry={() => void polled.refetch()} />;
    return <Loading>Loading session {sessionId}…</Loading>;
  }
  return (
    <article className="console" aria-labelledby="console-title">
      <header className="console__header">
        <p className="muted">
          <Link to={`/console/studies/${session.study}/sessions`}>← Sessions of the study</Link>
        </p>
        <h2 id="console-title">
          Session {session.id}: {session.participant_code} plays {session.game_name}
        </h2>
        <p className="muted">
          Station {session.station_name ?? 'none'} · order {session.order_policy}
          {session.latin_square_row !== null ? ` (row ${session.latin_square_row})` : ''} · seed {session.seed} · study
          version {session.study_version}
        </p>
      </header>
      {polled.error && (
        <p className="banner banner--warn" role="alert">
          Lost contact with the server ({polled.error.message}); retrying every second. The session keeps running on the
          server.
        </p>
      )}
      <SessionDryRunBanner session={session} />
      <div className="console__grid">
        <StatusPanel
          session={session}
          receivedAt={polled.dataUpdatedAt}
          onChanged={(fresh) => {
            // The action's response is the session as it now is: show it without another GET.
            if (path !== null) queryClient.setQueryData(apiKey(path), fresh);
          }}
        />
        <ParticipantLinkPanel session={session} />
      </div>
      <ScenarioPanel session={session} />
      <OrderPanel session={session} />
      <LogPanel message={session.message} />
    </article>
  );
}

function StatusPanel({ session, receivedAt, onChanged }: { session: Session; receivedAt: number; onChanged: (s: Session) => void }) {
  const remaining = useCountdown(session.seconds_remaining, receivedAt);
  // The study's rating items describe the rating form (fetched once, not polled).
  const study = useApiQuery<StudyDetail>(studyPath(session.study));
  const problem = agentProblem(session.state, session.message, session.station_name, session.position);
  const action = useAction();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const act = async (name: string, body?: unknown) => {
    const result = await action.run(() => sendJSON<Session>('POST', `${sessionPath(session.id)}${name}/`, body));
    if (result) onChanged(result);
  };
  const s = session.state;
  const running = !['created', 'completed', 'aborted', 'paused'].includes(s);
  const countdownLabel = s === 'free_play' ? 'Free play left' : s === 'playing' ? `Scenario ${session.position ?? ''} left` : null;

  return (
    <section className="card console__status" aria-labelledby="status-heading">
      <h3 id="status-heading" className="card__title">
        Now
      </h3>
      <p className="console__state">
        <span className={`state state--${s}`} data-testid="session-state">
          {STATE_LABEL[s]}
        </span>
        {session.position !== null && (
          <span className="console__position">
            scenario {session.position} of {session.scenario_count}
            {isTrainingSlot(session, session.position) ? ' (training)' : ''}
          </span>
        )}
        {s === 'paused' && session.paused_from && <span className="muted">(from {STATE_LABEL[session.paused_from]})</span>}
      </p>
      {countdownLabel && remaining !== null && (
        <p className="countdown" aria-live="off">
          <span className="countdown__label">{countdownLabel}</span>
          <span className="countdown__value" data-testid="console-countdown">
            {formatClock(remaining)}
          </span>
        </p>
      )}
      <p className="muted">Participant sees: {participantSees(s, study.data?.rating_items)}</p>
      {problem && (
        <div className="banner banner--error" role="alert">
          <p>
            <strong>{problem.headline}</strong>
          </p>
          <p>{problem.advice}</p>
        </div>
      )}
      <div className="console__controls" role="group" aria-label="Session controls">
        {s === 'created' && (
          <button type="button" className="button button--primary" disabled={action.busy} onClick={() => void act('start')}>
            Start session
          </button>
        )}
        {s === 'free_play' && (
          <button type="button" className="button" disabled={action.busy} onClick={() => void act('advance')}>
            End free play now
          </button>
        )}
        {s === 'playing' && (
          <button type="button" className="button" disabled={action.busy} onClick={() => void act('advance')}>
            End this scenario now
          </button>
        )}
        {s === 'applying' && (
          <button type="button" className="button" disabled={action.busy} onClick={() => void act('advance')}>
            Retry applying
          </button>
        )}
        {running && (
          <>
            <label className="visually-hidden" htmlFor={reasonId}>
              Reason for pausing
            </label>
            <input
              id={reasonId}
              className="console__reason"
              placeholder="Reason (optional)"
              value={reason}
              onChange={(e) => {
                setReason(e.target.value);
              }}
            />
            <button type="button" className="button" disabled={action.busy} onClick={() => void act('pause', { reason })}>
              Pause
            </button>
          </>
        )}
        {s === 'paused' && (
          <button type="button" className="button button--primary" disabled={action.busy} onClick={() => void act('resume')}>
            Resume
          </button>
        )}
        {s !== 'completed' && s !== 'aborted' && (
          <button
            type="button"
            className="button button--danger"
            disabled={action.busy}
            onClick={() => {
              if (window.confirm('Abort this session? The impairment is cleared and the station freed; it cannot be resumed.')) {
                void act('abort', { reason });
              }
            }}
          >
            Abort
          </button>
        )}
      </div>
      <ActionError error={action.error} />
    </section>
  );
}

function ParticipantLinkPanel({ session }: { session: Session }) {
  const [lang, setLang] = useState<Lang | ''>('');
  const [copied, setCopied] = useState(false);
  const url = participantLink(window.location.origin, session.id, session.participant_token, lang === '' ? null : lang);
  const langId = useId();
  if (session.state === 'completed' || session.state === 'aborted') {
    return (
      <section className="card" aria-labelledby="link-heading">
        <h3 id="link-heading" className="card__title">
          Participant screen
        </h3>
        <p>The session is {STATE_LABEL[session.state].toLowerCase()}; its link now shows the closing screen.</p>
      </section>
    );
  }
  return (
    <section className="card console__link" aria-labelledby="link-heading">
      <h3 id="link-heading" className="card__title">
        Participant screen
      </h3>
      <p className="muted">Open this link on the participant&apos;s device, or let them scan the code. No account needed.</p>
      <div className="console__link-row">
        <QrCode text={url} label={`QR code of the participant link of session ${session.id}`} />
        <div>
          <label htmlFor={langId}>Language of the participant screens</label>
          <select
            id={langId}
            value={lang}
            onChange={(e) => {
              setLang(e.target.value as Lang | '');
              setCopied(false);
            }}
          >
            <option value="">the study&apos;s language</option>
            <option value="de">Deutsch</option>
            <option value="en">English</option>
          </select>
          <p>
            <a href={url} target="_blank" rel="noreferrer" data-testid="participant-link" className="console__url">
              {url}
            </a>
          </p>
          <button
            type="button"
            className="button"
            onClick={() => {
              void navigator.clipboard.writeText(url).then(() => {
                setCopied(true);
              });
            }}
          >
            Copy link
          </button>{' '}
          {copied && <span role="status">Copied.</span>}
        </div>
      </div>
    </section>
  );
}

const DIRECTIONS = [
  { key: 'upstream', label: 'Upstream (client→server)' },
  { key: 'downstream', label: 'Downstream (server→client)' },
] as const;

function ScenarioPanel({ session }: { session: Session }) {
  const scenario = session.current_scenario;
  return (
    <section className="card" aria-labelledby="scenario-heading">
      <h3 id="scenario-heading" className="card__title">
        Current scenario <span className="muted">(hidden from the participant)</span>
      </h3>
      {/* an ended session plays nothing, whatever its last position was (issue 35) */}
      {!scenario || session.state === 'aborted' || session.state === 'completed' ? (
        <p className="muted">No scenario is being played{session.state === 'free_play' ? ' — free play is unimpaired' : ''}.</p>
      ) : (
        <>
          <p>
            <code className="scenario-code" data-testid="current-scenario">
              {scenario.code}
            </code>{' '}
            {scenario.label}
            {scenario.round > 1 && <span className="badge badge--baseline">retest round {scenario.round}</span>}
            {isTrainingSlot(session, session.position) && <span className="badge">training — not analysed</span>}
          </p>
          <div className="table-wrap">
            <table className="data-table" aria-label="Requested and verified impairment">
              <thead>
                <tr>
                  <th scope="col">Direction</th>
                  <th scope="col" className="num">Requested delay (ms)</th>
                  <th scope="col" className="num">jitter (ms)</th>
                  <th scope="col" className="num">loss (%)</th>
                  <th scope="col" className="num">Verified delay (ms)</th>
                  <th scope="col" className="num">jitter (ms)</th>
                  <th scope="col" className="num">loss (%)</th>
                </tr>
              </thead>
              <tbody>
                {DIRECTIONS.map((d) => (
                  <tr key={d.key}>
                    <th scope="row">{d.label}</th>
                    <ImpairmentCells value={scenario.requested_profile[d.key]} />
                    <ImpairmentCells value={installed(session.applied_profile, d.key)} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="muted">
            {session.applied_profile && session.applied_at
              ? (session.applied_verified_at
                  ? `Verified: the agent read this state back from the kernel at ${new Date(session.applied_verified_at).toLocaleTimeString()}`
                  : `Not verified: the ${session.applied_backend || 'unknown'} agent recorded this state at ${new Date(session.applied_at).toLocaleTimeString()} without reading it back from a kernel`) +
                (session.lease_renewed_at ? `; lease renewed ${new Date(session.lease_renewed_at).toLocaleTimeString()}.` : '.')
              : session.state === 'rating'
                ? 'Rating: the impairment stays until the next scenario is applied.'
                : 'Not verified yet: the agent has not confirmed this scenario.'}
          </p>
        </>
      )}
    </section>
  );
}

function installed(profile: InstalledProfile | null, direction: string): Partial<Impairment> | null {
  const value = profile?.[direction];
  return value ?? null;
}

function ImpairmentCells({ value }: { value: Partial<Impairment> | null }) {
  const cell = (n: number | undefined) => (n === undefined || value === null ? '—' : formatNumber(n));
  return (
    <>
      <td className="num">{cell(value?.delay_ms)}</td>
      <td className="num">{cell(value?.jitter_ms)}</td>
      <td className="num">{cell(value?.loss_pct)}</td>
    </>
  );
}

function LogPanel({ message }: { message: string }) {
  const lines = message.split('\n').filter((l) => l.trim());
  if (lines.length === 0) return null;
  return (
    <section className="card" aria-labelledby="log-heading">
      <h3 id="log-heading" className="card__title">
        Session log
      </h3>
      <ol className="log">
        {lines.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ol>
    </section>
  );
}
