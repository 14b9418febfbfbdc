/**
 * The server's preview of a design: how many scenarios, the session length they imply, the
 * planning hint (raters per game for a MOS interval of ±0.5, what the rater screens need and
 * whether the design has a group the intra-rater rule can count; ./planning.ts) and the
 * scenarios themselves; or, in plain words, why the design is refused (e.g. more scenarios
 * than the study maximum, the count named by the server).
 */
import type { UseQueryResult } from '@tanstack/react-query';

import { ApiError } from '../../api';
import type { DesignResult, FactorCatalog } from '../../api';
import { ScenariosTable } from '../../components/ScenariosTable';
import { planningHint, planningText } from './planning';
import { sessionLength } from './sessionLength';

interface Props {
  catalog: FactorCatalog;
  preview: UseQueryResult<DesignResult>;
  /** The form is invalid: no preview until it is fixed. */
  invalid: boolean;
  /** Why there is no preview, when not "fix the marked fields" (e.g. no levels given yet). */
  invalidHint?: string | undefined;
  /** The form changed since the preview shown: a new one is on its way. */
  waiting: boolean;
  /** The refusal's errors that belong to a field (shown there): not repeated here. */
  fieldErrors: Record<string, string>;
  /** The range of the study's primary rating scale (for the planning hint). */
  scale: { low: number; high: number };
}

export function DesignPreview({ catalog, preview, invalid, invalidHint, waiting, fieldErrors, scale }: Props) {
  let body;
  if (invalid) {
    body = <p className="muted">{invalidHint ?? 'Fix the fields marked above to see the preview.'}</p>;
  } else if (preview.isError) {
    const error = preview.error;
    const message = error instanceof ApiError ? (error.detail ?? error.message) : error.message;
    const onlyFields = Object.keys(fieldErrors).length > 0 && !('' in fieldErrors);
    body = (
      <p className="field-error" role="alert">
        {onlyFields ? 'The server refused the design: see the fields marked above.' : message}
      </p>
    );
  } else if (preview.data) {
    const data = preview.data;
    body = (
      <>
        <p data-testid="design-preview-size">
          <strong>{sessionLength(data.count, data.session_minutes)}</strong>
        </p>
        <div className="design-planning" data-testid="design-planning">
          <h6>Planning: raters this design needs</h6>
          <ul>
            {planningText(planningHint(data.scenarios, catalog.factors, scale.low, scale.high)).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
        <ScenariosTable scenarios={data.scenarios} factors={catalog.factors} caption="Preview of the generated scenarios" />
      </>
    );
  } else {
    body = <p className="muted">Loading the preview…</p>;
  }
  return (
    <div className="design-preview" data-testid="design-preview" aria-live="polite" aria-busy={waiting || preview.isFetching}>
      <h5>Preview</h5>
      {waiting && !invalid && <p className="muted">Updating the preview…</p>}
      {body}
    </div>
  );
}
