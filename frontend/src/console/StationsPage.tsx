import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Link } from 'react-router';

import { apiKey, fieldErrors, sendJSON, stationApplyBaselinePath, stationPath, stationsPath, useApiQuery } from '../api';
import type { BaselineResult, Station } from '../api';
import { EmptyState, ErrorMessage, Loading } from '../components/StatusMessage';
import { EndpointSecretFields, useEndpointSecret } from './EndpointSecretFields';
import type { EndpointTexts } from './EndpointSecretFields';
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
  const busy = station.busy_with_session !== null;

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
        <dt>Owner</dt>
        <dd>
          {station.owner ?? <span className="muted">none (staff only)</span>}
          {station.shared ? ' · shared: every researcher may run sessions on it' : ' · not shared'}
        </dd>
        <dt>Agent</dt>
        <dd>
          <code>{station.agent_url}</code>
        </dd>
        <dt>TLS</dt>
        <dd>{agentTransport(station)}</dd>
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
      {station.can_change ? (
        <>
          <div className="form__actions">
            <button
              type="button"
              className="button"
              disabled={check.busy || busy}
              title={busy ? 'A session holds this station' : undefined}
              onClick={() => void runCheck()}
            >
              {check.busy ? 'Checking…' : 'Check agent'}
            </button>
            <button
              type="button"
              className="button"
              disabled={baseline.busy || busy}
              title={busy ? 'A session holds this station' : undefined}
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
            {busy && <p className="muted">A session holds this station: it cannot be changed, checked or tested until the session ends.</p>}
            <StationForm station={station} onSaved={onChanged} disabled={busy} />
          </details>
        </>
      ) : (
        <p className="muted" data-testid="station-read-only">
          Read-only: only {station.owner === null ? 'staff' : 'its owner or staff'} may change, check or test this station
          {station.shared ? '; you may run sessions on it.' : '.'}
        </p>
      )}
    </li>
  );
}

/** How the token travels to the agent (issue 13): HTTPS with which trust anchor, or in clear. */
function agentTransport(station: Station): string {
  if (!station.agent_url.startsWith('https://')) return 'none: plain HTTP, the token travels in clear (loopback or an isolated cable only)';
  if (station.agent_ca_fingerprints.length === 0) return 'HTTPS, certificate checked against the system CAs';
  return `HTTPS, certificate checked against SHA-256 ${station.agent_ca_fingerprints.join(', ')}`;
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

/** The stored URL and a typed one compare without the trailing slash (the API drops it). */
function sameUrl(a: string, b: string) {
  return a.trim().replace(/\/+$/, '') === b.trim().replace(/\/+$/, '');
}

const AGENT_TEXTS: EndpointTexts = {
  holder: 'agent',
  urlLabel: 'Agent URL',
  urlHint: 'e.g. https://10.9.0.2:8787',
  tokenLabel: 'Agent token',
  newTokenHint: 'At least 16 characters; never shown again.',
  caLabel: 'Agent CA certificate (PEM)',
  caHint: "For an https:// agent: paste the agent's certificate (agent.crt from `netem-agent make-cert`, never its key). Empty: the system's CAs.",
  caRows: 4,
};

function StationForm({ station, onSaved, disabled = false }: { station?: Station; onSaved: () => void; disabled?: boolean }) {
  const [draft, setDraft] = useState({
    name: station?.name ?? '',
    agent_url: station?.agent_url ?? '',
    agent_token: '',
    agent_ca_cert: station?.agent_ca_cert ?? '',
    topology: station?.topology ?? '',
    shared: station?.shared ?? false,
  });
  const [saved, setSaved] = useState(false);
  const secret = useEndpointSecret(station?.agent_url, draft.agent_url, draft.agent_token, sameUrl);
  const action = useAction();
  const errors = fieldErrors(action.error);
  const edit = (patch: Partial<typeof draft>) => {
    setDraft({ ...draft, ...patch });
    setSaved(false);
    secret.clearMissing();
  };
  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (!secret.maySubmit()) return;
    const body: Record<string, string | boolean> = {
      name: draft.name,
      agent_url: draft.agent_url,
      agent_ca_cert: draft.agent_ca_cert,
      topology: draft.topology,
      shared: draft.shared,
    };
    if (draft.agent_token) body.agent_token = draft.agent_token;
    const result = await action.run(() =>
      station ? sendJSON<Station>('PATCH', stationPath(station.id), body) : sendJSON<Station>('POST', stationsPath(), body),
    );
    if (result) {
      setSaved(true);
      if (!station) setDraft({ name: '', agent_url: '', agent_token: '', agent_ca_cert: '', topology: '', shared: false });
      onSaved();
    }
  };
  return (
    <section aria-label={station ? `Edit ${station.name}` : 'New station'}>
      {!station && <h3>New station</h3>}
      <form className="form card form--grid" onSubmit={(event) => void submit(event)} noValidate>
        <fieldset disabled={disabled} className="form__fieldset">
          <Field label="Name" error={errors.name}>
            {(p) => <input {...p} value={draft.name} onChange={(e) => { edit({ name: e.target.value }); }} />}
          </Field>
          <EndpointSecretFields
            texts={AGENT_TEXTS}
            secret={secret}
            values={{ url: draft.agent_url, token: draft.agent_token, ca: draft.agent_ca_cert }}
            errors={{ url: errors.agent_url, token: errors.agent_token, ca: errors.agent_ca_cert }}
            onChange={(patch) => {
              edit({ agent_url: patch.url ?? draft.agent_url, agent_token: patch.token ?? draft.agent_token, agent_ca_cert: patch.ca ?? draft.agent_ca_cert });
            }}
          >
            <Field label="Wiring note" error={errors.topology}>
              {(p) => <input {...p} value={draft.topology} onChange={(e) => { edit({ topology: e.target.value }); }} />}
            </Field>
          </EndpointSecretFields>
          <div className="field field--checkbox">
            <label>
              <input type="checkbox" checked={draft.shared} onChange={(e) => { edit({ shared: e.target.checked }); }} /> Shared: other researchers may
              run sessions on it (only you and staff change it)
            </label>
            {errors.shared && <p className="field-error">{errors.shared}</p>}
          </div>
          <div className="form__actions">
            <button type="submit" className="button button--primary" disabled={action.busy || disabled}>
              {station ? 'Save station' : 'Add station'}
            </button>
            {saved && <span role="status" className="ok-text">Saved.</span>}
            {errors[''] && <ActionError error={errors['']} />}
          </div>
        </fieldset>
      </form>
    </section>
  );
}
