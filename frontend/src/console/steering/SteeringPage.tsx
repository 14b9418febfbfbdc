import { useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import { apiKey, sendJSON, useApiQuery } from '../../api';
import { EmptyState, ErrorMessage, Loading } from '../../components/StatusMessage';
import { useAction } from '../hooks';
import { ActionError } from '../ui';
import { SteeringServiceForm } from './SteeringServiceForm';
import { SteeringStateView } from './SteeringStateView';
import { steeringServicePath, steeringServicesPath } from './steeringTypes';
import type { SteeringService } from './steeringTypes';
import './steering.css';

/**
 * `/console/steering` — the researcher's `qoe-steer` daemons (issue 33): register one with its
 * status URL and token, then watch the selected one live (`?service=ID`): paths with their
 * measured KPIs beside the policy's bounds, the active path per flow, alarms and events.
 */
export default function SteeringPage() {
  const services = useApiQuery<SteeringService[]>(steeringServicesPath(), { keepPrevious: true });
  const [params, setParams] = useSearchParams();
  const queryClient = useQueryClient();
  const remove = useAction();
  const reload = () => void queryClient.invalidateQueries({ queryKey: apiKey(steeringServicesPath()) });
  const list = services.data ?? [];
  const wanted = Number(params.get('service'));
  const selected = list.find((s) => s.id === wanted) ?? list[0];
  const select = (id: number) => {
    setParams({ service: String(id) });
  };
  const deleteService = async (service: SteeringService) => {
    if (!window.confirm(`Remove the steering service "${service.name}" from the console? The daemon keeps running.`)) return;
    const done = await remove.run(() => sendJSON<null>('DELETE', steeringServicePath(service.id)), [apiKey(steeringServicesPath())]);
    if (done !== undefined) setParams({});
  };
  return (
    <>
      <h2>Steering</h2>
      <p className="muted">
        A steering service (<code>qoe-steer run</code>) measures each path between a game server and its clients, holds
        the measurements against the study&apos;s exported QoE policy and moves the game flow through the SDN controller.
        This page reads its state every 2 s.
      </p>
      {services.error && <ErrorMessage title="Could not load the steering services" error={services.error} onRetry={() => void services.refetch()} />}
      {services.isPending && <Loading>Loading steering services…</Loading>}
      {services.data && list.length === 0 && (
        <EmptyState>
          <p>No steering service yet: add one below with its status URL and token.</p>
        </EmptyState>
      )}
      {list.length > 0 && (
        <nav className="steering-services" aria-label="Steering services">
          {list.map((s) => (
            <button
              key={s.id}
              type="button"
              className={`button${s.id === selected?.id ? ' button--primary' : ''}`}
              aria-pressed={s.id === selected?.id}
              onClick={() => {
                select(s.id);
              }}
            >
              {s.name}
            </button>
          ))}
        </nav>
      )}
      {selected && (
        <section className="card" aria-labelledby="steering-selected">
          <h3 id="steering-selected" className="card__title">
            {selected.name} <span className="muted">· {selected.status_url}</span>
          </h3>
          <SteeringStateView key={selected.id} serviceId={selected.id} />
          <details className="steering-edit">
            <summary>Edit or remove this service</summary>
            <SteeringServiceForm key={selected.id} service={selected} onSaved={reload} />
            <button type="button" className="button" disabled={remove.busy} onClick={() => void deleteService(selected)}>
              Remove service
            </button>
            <ActionError error={remove.error} prefix="Could not remove" />
          </details>
        </section>
      )}
      <h3>New steering service</h3>
      <SteeringServiceForm
        onSaved={(saved) => {
          reload();
          select(saved.id);
        }}
      />
    </>
  );
}
