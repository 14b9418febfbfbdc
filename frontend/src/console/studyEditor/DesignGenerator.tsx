/**
 * The design generator: a full-factorial grid or one factor at a time, previewed live by the
 * server (`POST /studies/{id}/design/` with `dry_run: true`) and applied on request.
 *
 * For browser tests (Playwright), inside `getByRole('region', { name: 'Design generator' })`:
 *  - kind: `getByRole('radio', { name: 'Full factorial grid' })` / `{ name: 'One factor at a time' }`;
 *  - factors: `getByRole('group', { name: 'Factor 1' })`, then `getByLabel('Factor', { exact: true })`
 *    (select, option text = registry label: "Delay", "Loss"…), `getByLabel('Direction')` (select,
 *    values downstream | upstream | both) and `getByLabel(/^Levels/)` (text "0, 100, 200");
 *    `getByRole('button', { name: 'Add factor' })`, `{ name: 'Remove factor 2' }`;
 *  - base profile: `getByLabel('Downstream Jitter (ms)')`, `getByLabel('Upstream Jitter (ms)')`
 *    (every factor: "<Direction> <label> (<unit>)"; burst loss behind the checkbox
 *    "<Direction> burst loss (Gilbert–Elliott)", the rest behind "More factors");
 *  - preview: `getByTestId('design-preview')`, its summary `getByTestId('design-preview-size')`
 *    ("9 scenarios; one session takes about N min."), the planning hint `getByTestId('design-planning')`
 *    (one `li` per rule: interval, P.913, intra-rater), the table `getByRole('table', { name: /Preview/ })`;
 *    a refusal (over the maximum) is `getByRole('alert')` inside the preview;
 *  - `getByRole('button', { name: 'Apply design' })` (disabled until a valid preview; a
 *    confirm dialog when the study has scenarios), then `getByTestId('design-applied')`.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { sendJSON, studyDesignPath } from '../../api';
import type { DesignKind, DesignRequest, DesignResult, FactorCatalog, StudyDetail } from '../../api';
import { useAction } from '../hooks';
import { ActionError } from '../ui';
import { DesignFactorRows } from './DesignFactorRows';
import { DesignPreview } from './DesignPreview';
import { designRequest, emptyDesign } from './designDraft';
import { primaryScale } from './planning';
import type { DesignDraft } from './designDraft';
import { DirectionFields } from './DirectionFields';
import { DIRECTION_KEYS, directionErrors, serverErrors } from './factorForm';
import { useDebounced } from './useDebounced';

const KINDS: { value: DesignKind; label: string; hint: string }[] = [
  { value: 'grid', label: 'Full factorial grid', hint: 'every combination of the levels' },
  { value: 'one_at_a_time', label: 'One factor at a time', hint: 'the baseline, then each level of each factor alone' },
];

/** Milliseconds of quiet typing before the preview is asked for. */
export const PREVIEW_DELAY_MS = 350;

export function DesignGenerator({ study, catalog, onApplied }: { study: StudyDetail; catalog: FactorCatalog; onApplied: () => void }) {
  const [draft, setDraft] = useState<DesignDraft>(() => emptyDesign(catalog.factors));
  const [applied, setApplied] = useState<string | null>(null);
  const { request, errors } = designRequest(draft, catalog.factors, true);
  const debounced = useDebounced(request, PREVIEW_DELAY_MS);
  const preview = useQuery<DesignResult>({
    queryKey: ['design-preview', study.id, debounced],
    queryFn: () => sendJSON<DesignResult>('POST', studyDesignPath(study.id), debounced),
    enabled: debounced !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
  const apply = useAction();
  const fresh = request !== null && JSON.stringify(request) === JSON.stringify(debounced) && !preview.isPlaceholderData;
  const previewErrors = preview.isError ? serverErrors(preview.error, 'base') : {};
  const shownErrors = { ...previewErrors, ...errors };
  // Nothing typed yet: the empty Levels fields are not marked, so say what the preview waits for.
  const noLevelsYet = draft.rows.every((r) => r.levels.trim() === '');
  const canApply = fresh && preview.isSuccess && !preview.isFetching && !apply.busy;

  const change = (next: DesignDraft) => {
    setDraft(next);
    setApplied(null);
  };
  const applyDesign = async () => {
    if (!request || !preview.data) return;
    const count = preview.data.count;
    if (study.scenarios.length > 0 && !window.confirm(`Replace the ${study.scenarios.length} current scenario(s) with the ${count} of this design?`)) return;
    const body: DesignRequest = { ...request, dry_run: false };
    const result = await apply.run(() => sendJSON<DesignResult>('POST', studyDesignPath(study.id), body));
    if (result) {
      setApplied(`Applied: the study now has ${result.count} scenario(s).`);
      onApplied();
    }
  };

  return (
    <section aria-labelledby="design-generator-heading" className="card design-generator">
      <h4 id="design-generator-heading">Design generator</h4>
      <p className="muted">
        Generate the scenarios from factors and levels; at most {catalog.max_scenarios} scenarios per study. Applying
        replaces the current scenarios (rows with ratings are kept as an older study version).
      </p>
      <fieldset>
        <legend>Kind of design</legend>
        {KINDS.map((k) => (
          <label key={k.value} className="field--checkbox">
            <input type="radio" name="design-kind" value={k.value} checked={draft.kind === k.value} onChange={() => { change({ ...draft, kind: k.value }); }} />{' '}
            {k.label} <span className="muted">({k.hint})</span>
          </label>
        ))}
      </fieldset>
      <DesignFactorRows factors={catalog.factors} rows={draft.rows} onChange={(rows) => { change({ ...draft, rows }); }} errors={shownErrors} />
      <h5>Base profile of every scenario</h5>
      <p className="field-hint">Factors the design does not vary keep these values (e.g. 10 ms jitter each way).</p>
      {DIRECTION_KEYS.map((d) => (
        <DirectionFields
          key={d}
          direction={d}
          legend={`Base: ${d} (${catalog.directions[d]})`}
          factors={catalog.factors}
          draft={draft.base[d]}
          onChange={(value) => { change({ ...draft, base: { ...draft.base, [d]: value } }); }}
          errors={directionErrors(shownErrors, d)}
          warnJitterWithoutDelay={false}
        />
      ))}
      {errors[''] && <p className="field-error" role="alert">{errors['']}</p>}
      <DesignPreview catalog={catalog} preview={preview} invalid={request === null} invalidHint={noLevelsYet ? 'Give the levels of each factor to see the preview.' : undefined} waiting={request !== null && !fresh} fieldErrors={previewErrors} scale={primaryScale(study)} />
      <p>
        <button type="button" className="button button--primary" disabled={!canApply} onClick={() => void applyDesign()}>
          Apply design
        </button>{' '}
        {applied && (
          <span role="status" data-testid="design-applied">
            {applied}
          </span>
        )}
      </p>
      <ActionError error={apply.error} prefix="The design was not applied" />
    </section>
  );
}
