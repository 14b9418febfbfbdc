import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';

import { apiKey, fieldErrors, participantsPath, sendJSON, sessionsPath, stationsPath, studyPath, useApiQuery } from '../api';
import type { Participant, Session, Station, StudyDetail } from '../api';
import { ErrorMessage, Loading } from '../components/StatusMessage';
import { useAction } from './hooks';
import { STATE_LABEL } from './sessionText';
import { AnalysisOnlyNote } from './studyEditor/AnalysisOnlyDesign';
import { ActionError, Field, HealthLight, StudyNav, useStudyId } from './ui';

/**
 * `/console/studies/:id/sessions` — run a session: pick participant, game and station. An analysis-only study (imported
 * from a dataset) is never run at a station: a note instead of the form.
 */
export function SessionsPage() {
  const studyId = useStudyId(useParams().studyId);
  const study = useApiQuery<StudyDetail>(studyId === null ? null : studyPath(studyId));
  const sessions = useApiQuery<Session[]>(studyId === null ? null : sessionsPath(studyId), { keepPrevious: true });
  if (studyId === null) return <ErrorMessage title="Not a study" error={new Error('invalid study id')} />;
  return (
    <>
      <StudyNav studyId={studyId} title={study.data?.title} />
      {study.isError && <ErrorMessage title="Could not load the study" error={study.error} onRetry={() => void study.refetch()} />}
      {study.data &&
        (study.data.analysis_only ? (
          <AnalysisOnlyNote studyId={studyId}>it cannot be run at a station; its sessions are the data&apos;s.</AnalysisOnlyNote>
        ) : (
          <NewSessionForm study={study.data} />
        ))}
      <section aria-labelledby="sessions-heading">
        <h3 id="sessions-heading">Sessions</h3>
        {sessions.isError && (
          <ErrorMessage title="Could not load sessions" error={sessions.error} onRetry={() => void sessions.refetch()} />
        )}
        {sessions.isPending && <Loading>Loading sessions…</Loading>}
        {sessions.data && <SessionsTable sessions={sessions.data} />}
      </section>
    </>
  );
}

function SessionsTable({ sessions }: { sessions: Session[] }) {
  const live = sessions.filter((s) => !s.imported);
  const imported = sessions.length - live.length;
  if (sessions.length === 0) return <p className="muted">No session yet.</p>;
  return (
    <>
      <div className="table-wrap">
        <table className="data-table" aria-label="Sessions">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Participant</th>
              <th scope="col">Game</th>
              <th scope="col">Station</th>
              <th scope="col">State</th>
              <th scope="col" className="num">Ratings</th>
            </tr>
          </thead>
          <tbody>
            {live.map((s) => (
              <tr key={s.id}>
                <th scope="row">
                  <Link to={`/console/sessions/${s.id}`}>#{s.id} — open console</Link>
                </th>
                <td>{s.participant_code}</td>
                <td>{s.game_name}</td>
                <td>{s.station_name ?? '—'}</td>
                <td>
                  <span className={`state state--${s.state}`}>{STATE_LABEL[s.state]}</span>
                </td>
                <td className="num">
                  {s.ratings.length} / {s.scenario_count}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {imported > 0 && <p className="muted">{imported} imported session(s) are not listed here; see Progress.</p>}
    </>
  );
}

function NewSessionForm({ study }: { study: StudyDetail }) {
  const navigate = useNavigate();
  const participants = useApiQuery<Participant[]>(participantsPath(study.id), { keepPrevious: true });
  const stations = useApiQuery<Station[]>(stationsPath(), { keepPrevious: true });
  const [participant, setParticipant] = useState('');
  const [newCode, setNewCode] = useState('');
  const [game, setGame] = useState('');
  const [station, setStation] = useState('');
  const action = useAction();
  const errors = fieldErrors(action.error);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const created = await action.run(async () => {
      let participantId = Number(participant);
      if (participant === 'new') {
        const p = await sendJSON<Participant>('POST', participantsPath(), newCode.trim() ? { study: study.id, code: newCode.trim() } : { study: study.id });
        participantId = p.id;
        setParticipant(String(p.id));
      }
      return sendJSON<Session>('POST', sessionsPath(), {
        participant: participant === '' ? null : participantId,
        game: game === '' ? null : Number(game),
        station: station === '' ? null : Number(station),
      });
    }, [apiKey(participantsPath()), apiKey(sessionsPath()), apiKey(stationsPath())]);
    if (created) void navigate(`/console/sessions/${created.id}`);
  };

  const stationList = stations.data ?? [];
  const chosenStation = stationList.find((s) => String(s.id) === station);
  return (
    <section aria-labelledby="new-session">
      <h3 id="new-session">Run a session</h3>
      <form className="form card form--grid" onSubmit={(event) => void submit(event)} noValidate aria-label="New session">
        <Field label="Participant" error={errors.participant ?? errors.code}>
          {(p) => (
            <select {...p} value={participant} onChange={(e) => { setParticipant(e.target.value); }}>
              <option value="">choose…</option>
              <option value="new">+ new participant</option>
              {participants.data?.map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.code}
                    {x.age !== null ? ` (${x.age}, ${x.skill || 'skill ?'})` : ''}
                  </option>
                ))}
            </select>
          )}
        </Field>
        {participant === 'new' && (
          <Field label="Pseudonym of the new participant" hint="Leave empty for the next free code (P001, P002, …). Never a name.">
            {(p) => <input {...p} value={newCode} onChange={(e) => { setNewCode(e.target.value); }} />}
          </Field>
        )}
        <Field label="Game" error={errors.game}>
          {(p) => (
            <select {...p} value={game} onChange={(e) => { setGame(e.target.value); }}>
              <option value="">choose…</option>
              {study.games.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name} ({g.pace})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Station"
          error={errors.station}
          hint={chosenStation ? <HealthLight ok={chosenStation.last_check_ok} label={`agent ${chosenStation.last_check_ok === null ? 'not checked' : chosenStation.last_check_ok ? 'healthy' : 'failing'}`} /> : undefined}
        >
          {(p) => (
            <select {...p} value={station} onChange={(e) => { setStation(e.target.value); }}>
              <option value="">choose…</option>
              {stationList.map((s) => (
                <option key={s.id} value={s.id} disabled={s.busy_with_session !== null}>
                  {s.name}
                  {s.busy_with_session !== null ? ` (busy: session ${s.busy_with_session})` : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div className="form__actions">
          <button type="submit" className="button button--primary" disabled={action.busy}>
            Create session and open the console
          </button>
          {(errors[''] ?? errors.study) && <ActionError error={errors[''] ?? errors.study} />}
        </div>
      </form>
    </section>
  );
}
