/**
 * Adds or edits one scenario: code, label, baseline, and every registry factor per
 * direction (DirectionFields). Values outside the registry's limits are refused here, with
 * the limit named, before any request; the server's 400s appear next to their field.
 * The form is named "New scenario" or "Edit scenario <code>"; its buttons are "Add
 * scenario" / "Save scenario" and "Cancel".
 */
import { useState } from 'react';
import type { SyntheticEvent } from 'react';

import { scenarioPath, scenariosPath, sendJSON } from '../../api';
import type { DirectionKey, FactorCatalog, Scenario } from '../../api';
import { useAction } from '../hooks';
import { Field } from '../ui';
import { DirectionFields } from './DirectionFields';
import { DIRECTION_KEYS, directionErrors, draftOf, profileOf, serverErrors } from './factorForm';
import type { DirectionDraft } from './factorForm';

interface Props {
  studyId: number;
  catalog: FactorCatalog;
  /** The scenario to edit, or null for a new one. */
  scenario: Scenario | null;
  onDone: () => void;
  onCancel?: (() => void) | undefined;
}

const CODE_PATTERN = /^[A-Z][A-Z0-9]{0,7}$/;

export function ScenarioForm({ studyId, catalog, scenario, onDone, onCancel }: Props) {
  const factors = catalog.factors;
  const [code, setCode] = useState(scenario?.code ?? '');
  const [label, setLabel] = useState(scenario?.label ?? '');
  const [baseline, setBaseline] = useState(scenario?.is_baseline ?? false);
  const [drafts, setDrafts] = useState<Record<DirectionKey, DirectionDraft>>({
    downstream: draftOf(factors, scenario?.downstream),
    upstream: draftOf(factors, scenario?.upstream),
  });
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const action = useAction();
  const errors = { ...serverErrors(action.error), ...localErrors };
  const title = scenario ? `Edit scenario ${scenario.code}` : 'New scenario';

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    action.clearError();
    const found: Record<string, string> = {};
    const body: Record<string, unknown> = { code: code.trim(), label, is_baseline: baseline };
    if (!CODE_PATTERN.test(code.trim())) found.code = 'A code is a capital letter then up to 7 capitals or digits (e.g. D1)';
    for (const direction of DIRECTION_KEYS) {
      const { profile, errors: problems } = profileOf(factors, drafts[direction]);
      for (const [key, message] of Object.entries(problems)) found[`${direction}.${key}`] = message;
      body[direction] = profile;
    }
    setLocalErrors(found);
    if (Object.keys(found).length > 0) return;
    const saved = await action.run(() =>
      scenario ? sendJSON<Scenario>('PATCH', scenarioPath(scenario.id), body) : sendJSON<Scenario>('POST', scenariosPath(), { ...body, study: studyId }),
    );
    if (saved) onDone();
  };
  const general = [errors[''], errors.profile, errors.study, errors.is_baseline].filter(Boolean).join(' ');

  return (
    <form className="form card scenario-form" aria-label={title} data-testid="scenario-form" onSubmit={(e) => void submit(e)} noValidate>
      <h4>{title}</h4>
      <div className="form--inline">
        <Field label="Code" error={errors.code} hint="B for the baseline; e.g. D1, L2.">
          {(props) => (
            <input
              {...props}
              className="input--code"
              value={code}
              onChange={(e) => {
                setCode(e.target.value.toUpperCase());
              }}
            />
          )}
        </Field>
        <Field label="Label" error={errors.label}>
          {(props) => (
            <input
              {...props}
              value={label}
              onChange={(e) => {
                setLabel(e.target.value);
              }}
            />
          )}
        </Field>
        <label className="field--checkbox">
          <input
            type="checkbox"
            checked={baseline}
            onChange={(e) => {
              setBaseline(e.target.checked);
            }}
          />{' '}
          Baseline scenario
        </label>
      </div>
      {DIRECTION_KEYS.map((direction) => (
        <DirectionFields
          key={direction}
          direction={direction}
          legend={`${direction === 'downstream' ? 'Downstream' : 'Upstream'} (${catalog.directions[direction]})`}
          factors={factors}
          draft={drafts[direction]}
          onChange={(draft) => {
            setDrafts({ ...drafts, [direction]: draft });
          }}
          errors={directionErrors(errors, direction)}
        />
      ))}
      <div className="form__actions">
        <button type="submit" className="button button--primary" disabled={action.busy}>
          {scenario ? 'Save scenario' : 'Add scenario'}
        </button>
        {onCancel && (
          <button type="button" className="button button--quiet" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {general && <p className="field-error" role="alert">{general}</p>}
    </form>
  );
}
