/**
 * The study's rating items (issue 15): the questions asked after every scenario, in order,
 * each on its scale; the gaming preset (ITU-T P.809: overall, input and video quality,
 * acceptance) or ACR-5 only; the acceptance rule; training on anchors; the fast-answer floor.
 * Saved with one PATCH of the study, like the other settings; a 4xx is shown at its field.
 */
import { useState } from 'react';

import { fieldErrors, sendJSON, studyPath, useApiQuery } from '../../api';
import type { StudyDetail } from '../../api';
import { useAction } from '../hooks';
import { ActionError, Field } from '../ui';
import { AcceptanceFields } from './AcceptanceFields';
import type { AcceptanceDraft } from './AcceptanceFields';
import { toNumber } from './editRow';
import { errorsUnder, placeFieldErrors } from './fieldErrorsUnder';
import { draftToItem, itemToDraft, move, newItemDraft, shownErrorPaths } from './ratingItemDraft';
import type { ItemDraft } from './ratingItemDraft';
import { RatingItemRow } from './RatingItemRow';
import { acceptanceFor, ratingPresetsPath } from './ratingSettings';
import type { Acceptance, RatingItem, RatingPresets } from './ratingSettings';
import './ratingItems.css';
import { QualityControlFields, qcBody, qcDraft } from './QualityControlFields';
import type { QualityControlDraft } from './QualityControlFields';
import { TrainingFields } from './TrainingFields';
import type { TrainingDraft } from './TrainingFields';

const MAX_ITEMS = 8;

interface Draft {
  items: ItemDraft[];
  acceptance: AcceptanceDraft;
  training: TrainingDraft;
  qc: QualityControlDraft;
  min_response_ms: string;
}

const acceptanceDraft = (a: Acceptance): AcceptanceDraft => ({ item: a.item, min: a.min === undefined ? '' : String(a.min) });

function toDraft(study: StudyDetail): Draft {
  return {
    items: study.rating_items.map(itemToDraft),
    acceptance: acceptanceDraft(study.acceptance),
    training: { enabled: study.training.enabled, scenarios: study.training.scenarios, seconds: String(study.training.seconds) },
    qc: qcDraft(study.quality_control),
    min_response_ms: String(study.min_response_ms),
  };
}

function toBody(draft: Draft) {
  const binary = draft.items.find((i) => i.key === draft.acceptance.item)?.scale.kind === 'binary';
  return {
    rating_items: draft.items.map(draftToItem),
    acceptance: binary ? { item: draft.acceptance.item } : { item: draft.acceptance.item, min: toNumber(draft.acceptance.min) },
    training: { enabled: draft.training.enabled, scenarios: draft.training.scenarios, seconds: toNumber(draft.training.seconds) },
    quality_control: qcBody(draft.qc),
    min_response_ms: toNumber(draft.min_response_ms),
  };
}

export function RatingItemsEditor({ study, onSaved }: { study: StudyDetail; onSaved: () => void }) {
  const presets = useApiQuery<RatingPresets>(ratingPresetsPath());
  const [edited, setEdited] = useState<Draft | null>(null);
  // Until the researcher edits, the form follows the study.
  const draft = edited ?? toDraft(study);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const errors = placeFieldErrors(fieldErrors(action.error));
  const set = (patch: Partial<Draft>) => {
    setEdited({ ...draft, ...patch });
    setSaved(false);
  };
  const setItems = (items: ItemDraft[]) => {
    set({ items });
  };
  const applyPreset = (items: RatingItem[]) => {
    const acceptanceItem = items.find((i) => i.scale.kind === 'binary') ?? items[0];
    set({ items: items.map(itemToDraft), acceptance: acceptanceItem ? acceptanceDraft(acceptanceFor(acceptanceItem)) : draft.acceptance });
  };

  const save = async () => {
    const result = await action.run(() => sendJSON<StudyDetail>('PATCH', studyPath(study.id), toBody(draft)));
    if (result) {
      setSaved(true);
      onSaved();
    }
  };

  return (
    <section aria-labelledby="rating-items-heading">
      <h3 id="rating-items-heading">Rating items</h3>
      <p className="muted">
        Asked after every scenario, on one screen, in this order (1–{MAX_ITEMS} items). Editable while the study has no
        sessions.
      </p>
      <div className="form__actions">
        <button type="button" className="button" disabled={!presets.data} onClick={() => { if (presets.data) applyPreset(presets.data.gaming); }}>
          Gaming preset (ITU-T P.809)
        </button>
        <button type="button" className="button" disabled={!presets.data} onClick={() => { if (presets.data) applyPreset(presets.data.acr5); }}>
          ACR-5 only
        </button>
        {presets.isError && <ActionError error={presets.error} prefix="Could not load the rating presets" />}
      </div>
      <ol className="rating-items" aria-label="Rating items">
        {draft.items.map((item, index) => {
          const under = errorsUnder(errors, `rating_items.${index}`);
          return (
            <RatingItemRow
              key={index}
              item={item}
              index={index}
              count={draft.items.length}
              scales={presets.data?.scales}
              err={under.at}
              otherErrors={under.rest(shownErrorPaths(item))}
              onChange={(next) => { setItems(draft.items.map((row, i) => (i === index ? next : row))); }}
              onMove={(by) => { setItems(move(draft.items, index, by)); }}
              onRemove={() => { setItems(draft.items.filter((_, i) => i !== index)); }}
            />
          );
        })}
      </ol>
      {errors.rating_items && <p className="field-error" role="alert">{errors.rating_items}</p>}
      <div className="form__actions">
        <button
          type="button"
          className="button"
          disabled={draft.items.length >= MAX_ITEMS}
          onClick={() => { setItems([...draft.items, newItemDraft(draft.items.length, presets.data?.scales)]); }}
        >
          Add a rating item
        </button>
      </div>
      <div className="form card">
        <AcceptanceFields acceptance={draft.acceptance} items={draft.items} err={errorsUnder(errors, 'acceptance').at} onChange={(acceptance) => { set({ acceptance }); }} />
        <TrainingFields training={draft.training} scenarios={study.scenarios} scenarioSeconds={study.seconds_per_scenario} err={errorsUnder(errors, 'training').at} onChange={(training) => { set({ training }); }} />
        <QualityControlFields qc={draft.qc} scenarios={study.scenarios} firstItem={study.rating_items[0]} err={errorsUnder(errors, 'quality_control').at} onChange={(qc) => { set({ qc }); }} />
        <Field label="Fast answer floor (ms)" error={errors.min_response_ms} hint="Ratings submitted faster than this after the rating screen appeared count as fast.">
          {(props) => <input {...props} type="number" inputMode="numeric" value={draft.min_response_ms} onChange={(e) => { set({ min_response_ms: e.target.value }); }} />}
        </Field>
      </div>
      <div className="form__actions">
        <button type="button" className="button button--primary" disabled={action.busy} onClick={() => void save()}>
          Save rating items
        </button>
        {saved && <span role="status" className="ok-text">Saved.</span>}
        {errors[''] && <ActionError error={errors['']} />}
      </div>
    </section>
  );
}
