import { useState } from 'react';

import { ApiError, useApiQuery } from '../../api';
import { DelayChart } from './DelayChart';
import { appendHistory } from './steeringHistory';
import type { History } from './steeringHistory';
import { boundText, eventLines, flowLines, kpiRows, localClock } from './steeringText';
import type { Clock, KpiCell, KpiRow } from './steeringText';
import { DIRECTION_TEXT, STATE_POLL_MS, steeringStatePath } from './steeringTypes';
import type { ClassState, StatusDocument, SteeringState } from './steeringTypes';

/** Why the state could not be read, from the backend's `{detail, failure, field?}`. */
function failureText(error: Error): string {
  if (error instanceof ApiError && error.detail) return error.detail;
  return error.message;
}

/**
 * The live state of one steering service, read through the backend every 2 s. When a read
 * fails, the error shows above the last state read (labelled with its time).
 */
export function SteeringStateView({ serviceId, clock = localClock }: { serviceId: number; clock?: Clock }) {
  const state = useApiQuery<SteeringState>(steeringStatePath(serviceId), { refetchInterval: STATE_POLL_MS });
  const [history, setHistory] = useState<{ seen: number | null; points: History }>({ seen: null, points: {} });
  // Adjust the history while rendering when a new state arrived (no effect needed).
  if (state.data && state.data.fetched_at_unix !== history.seen) {
    setHistory({ seen: state.data.fetched_at_unix, points: appendHistory(history.points, state.data.status) });
  }
  return (
    <section className="steering-state" aria-label="Live state" aria-busy={state.isPending}>
      {state.error && (
        <div className="status status--error" role="alert" data-testid="state-error">
          <p>Could not read the service&apos;s state: {failureText(state.error)}</p>
          {state.data && <p>Below: the last state read, at {clock(state.data.fetched_at_unix)}.</p>}
        </div>
      )}
      {state.isPending && (
        <p className="status status--loading" role="status">
          Reading the service&apos;s state…
        </p>
      )}
      {state.data && <StatusView data={state.data} history={history.points} clock={clock} />}
    </section>
  );
}

function StatusView({ data, history, clock }: { data: SteeringState; history: History; clock: Clock }) {
  const status = data.status;
  const flows = flowLines(status, data.fetched_at_unix, clock);
  return (
    <>
      <Alarms status={status} clock={clock} />
      <p className="muted" data-testid="state-summary">
        {status.service} {status.version} · policy {status.policy.application} ({status.policy.source}) · actuator{' '}
        <strong>{status.actuator.kind}</strong> {status.actuator.healthy ? 'healthy' : 'NOT healthy'}
        {status.actuator.detail && ` (${status.actuator.detail})`} · window {status.settings.window_s} s, dwell{' '}
        {status.settings.dwell_s} s, hysteresis {status.settings.hysteresis} · read at {clock(data.fetched_at_unix)} in{' '}
        {data.round_trip_ms.toFixed(0)} ms
      </p>
      <h3>Active path</h3>
      {flows.length === 0 ? (
        <p className="muted">No flow is steered.</p>
      ) : (
        <ul className="steering-flows" aria-label="Active path per flow">
          {flows.map((f) => (
            <li key={`${f.klass}/${f.flow}`} data-testid={`flow-${f.flow}`}>
              <strong>{f.flow}</strong> ({f.klass}): {f.text}
              {f.pending && <span className="steering-pending"> · {f.pending}</span>}
            </li>
          ))}
        </ul>
      )}
      {status.classes.map((klass) => (
        <ClassTable key={klass.class} status={status} klass={klass} />
      ))}
      <DelayChart history={history} status={status} />
      <Events status={status} clock={clock} />
    </>
  );
}

function Alarms({ status, clock }: { status: StatusDocument; clock: Clock }) {
  if (status.alarms.length === 0) return <p className="ok-text">No alarm.</p>;
  return (
    <div className="banner banner--error" role="alert" aria-label="Alarms">
      <p>
        <strong>{status.alarms.length === 1 ? 'Alarm' : `${status.alarms.length} alarms`}</strong>
      </p>
      <ul>
        {status.alarms.map((a) => (
          <li key={a.code}>
            <code>{a.code}</code> since {clock(a.since_unix)}: {a.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Kpi({ cell, note }: { cell: KpiCell; note?: string }) {
  return (
    <td className={`num${cell.over ? ' kpi--over' : ''}`}>
      {cell.text}
      {note && <span className="steering-note">{note}</span>}
    </td>
  );
}

function pathLabel(row: KpiRow): string {
  const parts = [row.active ? 'active' : null, row.acceptable ? 'acceptable' : 'not acceptable'];
  return parts.filter(Boolean).join(', ');
}

function ClassTable({ status, klass }: { status: StatusDocument; klass: ClassState }) {
  const rows = kpiRows(status, klass);
  const compared = status.settings.delay_percentile;
  const showP99 = compared === 'p99';
  return (
    <div className="table-wrap">
      <table className="data-table steering-kpis" aria-label={`Paths for ${klass.class}`}>
        <caption>
          {klass.class} ({klass.pace}): each path per direction (upstream: client → server) over the last{' '}
          {status.settings.window_s} s window, beside the class&apos;s bounds; the delay bound applies to the {compared}.
        </caption>
        <thead>
          <tr>
            <th scope="col">Path</th>
            <th scope="col">Direction</th>
            <th scope="col">Delay p50</th>
            <th scope="col">Delay p95</th>
            {showP99 && <th scope="col">Delay p99</th>}
            <th scope="col">n</th>
            <th scope="col">Delay bound</th>
            <th scope="col">Loss (received/sent)</th>
            <th scope="col">Loss bound</th>
            <th scope="col">Jitter</th>
            <th scope="col">Jitter bound</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.path}/${row.direction}`} className={row.stale ? 'kpi-row--stale' : undefined} data-testid={`kpi-${row.path}-${row.direction}`}>
              <th scope="row">
                {row.path} <span className="steering-note">port {row.port}</span>
              </th>
              <td title={DIRECTION_TEXT[row.direction]}>{row.direction}</td>
              <Kpi cell={row.delayP50} />
              <Kpi cell={row.delayP95} />
              {showP99 && <Kpi cell={row.delayP99} />}
              <td className="num">{row.n ?? '—'}</td>
              <td className="num steering-bound">{boundText(row.bounds.delay_ms, 1, 'ms')}</td>
              <Kpi cell={row.loss} note={`${row.counts} received`} />
              <td className="num steering-bound">{boundText(row.bounds.loss_pct, 2, '%')}</td>
              <Kpi cell={row.jitter} />
              <td className="num steering-bound">{boundText(row.bounds.jitter_ms, 1, 'ms')}</td>
              <td>
                {pathLabel(row)}
                {row.stale && <> · stale: {row.stale}</>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Events({ status, clock }: { status: StatusDocument; clock: Clock }) {
  const lines = eventLines(status.events, clock);
  return (
    <>
      <h3>Last events</h3>
      {lines.length === 0 ? (
        <p className="muted">No event yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="data-table" aria-label="Last events">
            <caption>The last {lines.length} events, newest first.</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Flow</th>
                <th scope="col">From → to</th>
                <th scope="col">Reason</th>
                <th scope="col">Time to effect</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((e) => (
                <tr key={e.key}>
                  <td className="steering-time">{e.time}</td>
                  <td>{e.kind}</td>
                  <td>{e.flow}</td>
                  <td>{e.move}</td>
                  <td>{e.reason}</td>
                  <td className="num">{e.effect}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
