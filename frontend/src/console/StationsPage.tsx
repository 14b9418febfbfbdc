import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Link } from 'react-router';

import { apiKey, fieldErrors, sendJSON, stationApplyBaselinePath, stationPath, stationsPath, useApiQuery } from '../api';
import type { BaselineResult, Station } from '../api';
import { EmptyState, ErrorMessage, Loading } from '../components/StatusMessage';
import { useAction } from './hooks';
import { baselineReport } from './stationText';
import { ActionError, Field, HealthLight } from './ui';

/** `/console/stations` — the lab's seats and their netem agents. */
export function StationsPage() {
  const stations = useApiQuery<Station[]>(stationsPath(), { keepPrevious: true });
  const queryClient = useQueryClient();
  // After a change (or a check, which updates the health light) the list reloads, keeping its cards meanwhile.
  const reload = () => void queryClient.invalidateQueries({ queryKey: apiKey(stationsPath()) });
  return (
    <>
      <h2>Stations</h2>
      <p className="muted">
        Each station is a lab seat whose network is shaped by a netem agent. Check an agent before a session: the light
        shows whether the backend reached it with its token and found the configured interfaces.
      </p>
      {stations.error && <ErrorMessage title="Could not load stations" error={stations.error} onRetry={() => void stations.refetch()} />}
      {stations.isPending && <Loading>Loading stations…</Loading>}
      {stations.data &&
        (stations.data.length === 0 ? (
          <EmptyState>
            <p>No station yet: add one below with its agent&apos;s URL and token.</p>
          </EmptyState>
        ) : (
          <ul className="card-list" aria-label="Stations">
            {stations.data.map((station) => (
              <StationCard key={station.id} station={station} onChanged={reload} />
            ))}
          </ul>
        ))}
      <StationForm onSaved={reload} />
    </>
  );
}

function StationCard({ station, onChanged }: { station: Station; onChanged: () => void }) {
  const check = useAction();
  const baseline = useAction();
  const [baselineResult, setBaselineResult] = useState<BaselineResult | null>(null);
  const caps = station.agent_capabilities;
  const present = caps?.configured_interfaces_present ?? {};

  const runCheck = async () => {
    const result = await check.run(() => sendJSON<Station>('POST', `${stationPath(station.id)}check/`));
    if (result) onChanged();
  };
  const applyBaseline = async () => {
    setBaselineResult(null);
    const result = await baseline.run(() => sendJSON<BaselineResult>('POST', stationApplyBaselinePath(station.id)));
    if (result) setBaselineResult(result);
    // Success or failure, the station's health light and message changed on the server.
    onChanged();
  };

  return (
    <li className="card station" aria-labelledby={`station-${station.id}`}>
      <div className="station__head">
        <h3 id={`station-${station.id}`} className="card__title">
          {station.name}
        </h3>
        <HealthLight ok={station.last_check_ok} />
      </div>
      <dl className="facts">
        <dt>Agent</dt>
        <dd>
          <code>{station.agent_url}</code>
        </dd>
        <dt>Last check</dt>
        <dd>
          {station.last_checked_at ? new Date(station.last_checked_at).toLocaleString() : 'never'}
          {station.last_check_message && <> — {station.last_check_message}</>}
        </dd>
        {caps && (
          <>
            <dt>Capabilities</dt>
            <dd>
              backend <strong>{caps.backend ?? '?'}</strong>
              {Object.keys(present).length > 0 && (
                <>
                  {' · interfaces '}
                  {Object.entries(present).map(([name, ok]) => (
                    <span key={name} className={`iface ${ok ? 'iface--ok' : 'iface--missing'}`}>
                      {name} {ok ? '✓' : '(missing)'}
                    </span>
                  ))}
                </>
              )}
              {caps.profile_fields && <> · fields {caps.profile_fields.join(', ')}</>}
              {caps.lease?.default_seconds !== undefined && <> · lease {caps.lease.default_seconds} s</>}
            </dd>
          </>
        )}
        {station.topology && (
          <>
            <dt>Wiring</dt>
            <dd>{station.topology}</dd>
          </>
        )}
        <dt>In use</dt>
        <dd>
          {station.busy_with_session ? (
            <Link to={`/console/sessions/${station.busy_with_session}`}>session {station.busy_with_session}</Link>
          ) : (
            'free'
          )}
        </dd>
      </dl>
      <div className="form__actions">
        <button type="button" className="button" disabled={check.busy} onClick={() => void runCheck()}>
          {check.busy ? 'Checking…' : 'Check agent'}
        </button>
        <button
          type="button"
          className="button"
          disabled={baseline.busy || station.busy_with_session !== null}
          title={station.busy_with_session !== null ? 'A session holds this station' : undefined}
          onClick={() => void applyBaseline()}
        >
          {baseline.busy ? 'Applying…' : 'Apply baseline (test)'}
        </button>
        <ActionError error={check.error} prefix="Check failed" />
        <ActionError error={baseline.error} prefix="The baseline could not be applied" />
      </div>
      {baselineResult && <BaselineOutcome result={baselineResult} />}
      <details className="station__edit">
        <summary>Edit station</summary>
        <StationForm station={station} onSaved={onChanged} />
      </details>
    </li>
  );
}

/** The state the agent verified after "Apply baseline (test)". */
function BaselineOutcome({ result }: { result: BaselineResult }) {
  const report = baselineReport(result, (iso) => new Date(iso).toLocaleTimeString());
  return (
    <div className="station__baseline" role="status" data-testid="baseline-result">
      <p className="ok-text">{report.headline}</p>
      <ul>
        {report.directions.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      {report.notes.map((note) => (
        <p key={note} className="muted">
          {note}
        </p>
      ))}
    </div>
  );
}

function StationForm({ station, onSaved }: { station?: Station; onSaved: () => void }) {
  const [draft, setDraft] = useState({
    name: station?.name ?? '',
    agent_url: station?.agent_url ?? '',
    agent_token: '',
    topology: station?.topology ?? '',
  });
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const errors = fieldErrors(action.error);
  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const body: Record<string, string> = { name: draft.name, agent_url: draft.agent_url, topology: draft.topology };
    if (draft.agent_token) body.agent_token = draft.agent_token;
    const result = await action.run(() =>
      station ? sendJSON<Station>('PATCH', stationPath(station.id), body) : sendJSON<Station>('POST', stationsPath(), body),
    );
    if (result) {
      setSaved(true);
      if (!station) setDraft({ name: '', agent_url: '', agent_token: '', topology: '' });
      onSaved();
    }
  };
  return (
    <section aria-label={station ? `Edit ${station.name}` : 'New station'}>
      {!station && <h3>New station</h3>}
      <form className="form card form--grid" onSubmit={(event) => void submit(event)} noValidate>
        <Field label="Name" error={errors.name}>
          {(p) => <input {...p} value={draft.name} onChange={(e) => { setDraft({ ...draft, name: e.target.value }); setSaved(false); }} />}
        </Field>
        <Field label="Agent URL" error={errors.agent_url} hint="e.g. http://10.9.0.2:8787">
          {(p) => <input {...p} type="url" value={draft.agent_url} onChange={(e) => { setDraft({ ...draft, agent_url: e.target.value }); setSaved(false); }} />}
        </Field>
        <Field label="Agent token" error={errors.agent_token} hint={station ? 'Leave empty to keep the stored token (never shown).' : 'At least 16 characters; never shown again.'}>
          {(p) => <input {...p} type="password" autoComplete="off" value={draft.agent_token} onChange={(e) => { setDraft({ ...draft, agent_token: e.target.value }); setSaved(false); }} />}
        </Field>
        <Field label="Wiring note" error={errors.topology}>
          {(p) => <input {...p} value={draft.topology} onChange={(e) => { setDraft({ ...draft, topology: e.target.value }); setSaved(false); }} />}
        </Field>
        <div className="form__actions">
          <button type="submit" className="button button--primary" disabled={action.busy}>
            {station ? 'Save station' : 'Add station'}
          </button>
          {saved && <span role="status" className="ok-text">Saved.</span>}
          {errors[''] && <ActionError error={errors['']} />}
        </div>
      </form>
    </section>
  );
}
