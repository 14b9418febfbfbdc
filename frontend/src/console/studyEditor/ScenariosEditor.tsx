/**
 * The study's network scenarios: the list (every factor that differs from neutral, per
 * direction), their number and the session length they imply, edit/remove per row, the
 * registry-driven form for a new or edited scenario, the table 4.1 preset and the design
 * generator. Row buttons are named "Edit <code>" and "Remove <code>".
 */
import { useState } from 'react';

import { factorsPath, scenarioPath, sendJSON, useApiQuery } from '../../api';
import type { FactorCatalog, Scenario, StudyDetail } from '../../api';
import { ErrorMessage, Loading } from '../../components/StatusMessage';
import { useAction } from '../hooks';
import { ActionError } from '../ui';
import { DesignGenerator } from './DesignGenerator';
import { describeDirection } from './factorForm';
import { PresetButton } from './PresetButton';
import { ScenarioForm } from './ScenarioForm';
import { sessionLength } from './sessionLength';

export function ScenariosEditor({ study, onChanged }: { study: StudyDetail; onChanged: () => void }) {
  const catalog = useApiQuery<FactorCatalog>(factorsPath());
  const [editing, setEditing] = useState<Scenario | null>(null);
  const remove = useAction();
  const minutes = study.session_minutes;

  const removeScenario = async (s: Scenario) => {
    if (!window.confirm(`Remove scenario ${s.code}? Its ratings stay (as an older study version).`)) return;
    const done = await remove.run(async () => {
      await sendJSON('DELETE', scenarioPath(s.id));
      return true;
    });
    if (done) onChanged();
  };

  return (
    <section aria-labelledby="scenarios-heading">
      <h3 id="scenarios-heading">Network scenarios</h3>
      <p className="muted">
        Upstream = client→server (the player&apos;s inputs), downstream = server→client (the game video). Delay is one-way
        per direction.
      </p>
      <p role="status" data-testid="current-design-size">
        {sessionLength(study.scenarios.length, minutes)}
      </p>
      <PresetButton study={study} onChanged={onChanged} />
      {catalog.isError && <ErrorMessage title="Could not load the factor registry" error={catalog.error} onRetry={() => void catalog.refetch()} />}
      {catalog.isPending && <Loading>Loading the impairment factors…</Loading>}
      {catalog.data && (
        <>
          <div className="table-wrap">
            <table className="data-table edit-table" aria-label="Scenarios">
              <thead>
                <tr>
                  <th scope="col">Code</th>
                  <th scope="col">Label</th>
                  <th scope="col">Downstream ({catalog.data.directions.downstream})</th>
                  <th scope="col">Upstream ({catalog.data.directions.upstream})</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {study.scenarios.map((s) => (
                  <tr key={s.id} className={s.is_baseline ? 'is-baseline' : undefined}>
                    <th scope="row">
                      <code>{s.code}</code>
                    </th>
                    <td>
                      {s.label}
                      {s.is_baseline && <span className="badge badge--baseline">Baseline</span>}
                    </td>
                    <td>{describeDirection(catalog.data.factors, s.downstream)}</td>
                    <td>{describeDirection(catalog.data.factors, s.upstream)}</td>
                    <td className="edit-table__actions">
                      <button type="button" className="button button--small" aria-label={`Edit ${s.code}`} onClick={() => { setEditing(s); }}>
                        Edit
                      </button>
                      {!s.is_baseline && (
                        <button
                          type="button"
                          className="button button--small button--quiet"
                          aria-label={`Remove ${s.code}`}
                          disabled={remove.busy}
                          onClick={() => void removeScenario(s)}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ActionError error={remove.error} prefix="Could not remove the scenario" />
          <ScenarioForm
            // A fresh form per scenario (and after each save), so that its fields start from the stored values.
            key={editing ? `edit-${editing.id}-${JSON.stringify(editing)}` : `new-${study.scenarios.length}-${study.version}`}
            studyId={study.id}
            catalog={catalog.data}
            scenario={editing}
            onDone={() => {
              setEditing(null);
              onChanged();
            }}
            onCancel={editing ? () => { setEditing(null); } : undefined}
          />
          <DesignGenerator study={study} catalog={catalog.data} onApplied={onChanged} />
        </>
      )}
    </section>
  );
}
