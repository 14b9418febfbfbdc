/**
 * One direction's impairment fields, from the factor registry: the KPI factors (delay,
 * jitter, loss) in view, the Gilbert–Elliott parts as one "burst loss" group behind a
 * checkbox, every other factor behind a "More factors" disclosure (opened when one of them
 * is set or wrong). Accessible names: "<Direction> <label> (<unit>)", e.g.
 * "Downstream Delay (ms)", "Upstream Burst loss: p (good→bad) (%)"; the checkbox
 * "Downstream burst loss (Gilbert–Elliott)"; the disclosure "More factors (downstream)".
 *
 * Jitter on 0 ms delay is allowed (netem_profile.validate: a common grid level) but warned
 * about, without blocking (issue 35): netem draws each packet's delay around the delay and
 * sends the draws below 0 ms at once, so the jitter is one-sided, not ± as on a delay.
 */
import { useState } from 'react';

import type { DirectionKey, FactorInfo } from '../../api';
import { Field } from '../ui';
import { DIRECTION_NAMES, fieldLabel, groupFactors } from './factorForm';
import type { DirectionDraft } from './factorForm';

interface Props {
  direction: DirectionKey;
  /** The direction's heading, e.g. "Downstream (server→client)". */
  legend: string;
  factors: readonly FactorInfo[];
  draft: DirectionDraft;
  onChange: (draft: DirectionDraft) => void;
  /** Errors keyed by factor key (`loss_pct`, `ge_p_pct`), `gilbert_elliott` and `""`. */
  errors: Record<string, string>;
  /** Warn about jitter on 0 ms delay (off where the delay is varied elsewhere, e.g. a design's base). */
  warnJitterWithoutDelay?: boolean;
}

/** The warning for jitter on 0 ms delay, or null (see the module's docstring). */
export function jitterWithoutDelay(values: Record<string, string | undefined>): string | null {
  const jitter = Number(values.jitter_ms ?? 0);
  const delay = Number(values.delay_ms ?? 0);
  if (!(jitter > 0) || delay !== 0) return null;
  return `Jitter ${String(jitter)} ms on 0 ms delay: netem sends the packets whose draw falls below 0 ms at once, so the jitter only adds delay (not ± ${String(jitter)} ms). Allowed; set a delay of at least the jitter for jitter around a delay.`;
}

export function DirectionFields({ direction, legend, factors, draft, onChange, errors, warnJitterWithoutDelay = true }: Props) {
  const groups = groupFactors(factors);
  const name = DIRECTION_NAMES[direction];
  const moreSet = groups.more.some((f) => draft.values[f.key] !== String(f.neutral) || errors[f.key]);
  const [moreOpen, setMoreOpen] = useState(moreSet);
  const setValue = (key: string, value: string) => {
    onChange({ ...draft, values: { ...draft.values, [key]: value } });
  };
  const field = (f: FactorInfo) => (
    <FactorField key={f.key} factor={f} prefix={name} value={draft.values[f.key] ?? ''} error={errors[f.key]} onChange={setValue} />
  );
  const burstError = errors.gilbert_elliott;
  return (
    <fieldset className="direction-fields" data-testid={`direction-${direction}`}>
      <legend>{legend}</legend>
      {errors[''] && <p className="field-error" role="alert">{errors['']}</p>}
      <div className="form--grid">{groups.main.map(field)}</div>
      {warnJitterWithoutDelay && jitterWithoutDelay(draft.values) && (
        <p className="field-hint field-hint--warn" role="status" data-testid={`jitter-warning-${direction}`}>
          {jitterWithoutDelay(draft.values)}
        </p>
      )}
      {groups.burst.length > 0 && (
        <fieldset className="direction-fields__burst">
          <legend>Burst loss (Gilbert–Elliott)</legend>
          <label className="field--checkbox">
            <input
              type="checkbox"
              checked={draft.burst}
              aria-invalid={Boolean(burstError)}
              onChange={(e) => {
                onChange({ ...draft, burst: e.target.checked });
              }}
            />{' '}
            <span className="visually-hidden">{name} </span>burst loss (Gilbert–Elliott)
          </label>
          <p className="field-hint">Replaces random loss in this direction: set its loss to 0 when you use it.</p>
          {burstError && <p className="field-error" role="alert">{burstError}</p>}
          {draft.burst && <div className="form--grid">{groups.burst.map(field)}</div>}
        </fieldset>
      )}
      {groups.more.length > 0 && (
        <details
          open={moreOpen || moreSet}
          onToggle={(e) => {
            setMoreOpen(e.currentTarget.open);
          }}
        >
          <summary>
            More factors<span className="visually-hidden"> ({direction})</span>
          </summary>
          <div className="form--grid">{groups.more.map(field)}</div>
        </details>
      )}
    </fieldset>
  );
}

function FactorField({
  factor,
  prefix,
  value,
  error,
  onChange,
}: {
  factor: FactorInfo;
  prefix: string;
  value: string;
  error: string | undefined;
  onChange: (key: string, value: string) => void;
}) {
  const label = (
    <>
      <span className="visually-hidden">{prefix} </span>
      {fieldLabel(factor)}
    </>
  );
  const limits =
    factor.kind === 'numeric' && factor.minimum !== null && factor.maximum !== null
      ? `${factor.minimum}–${factor.maximum}${factor.unit ? ` ${factor.unit}` : ''}`
      : undefined;
  return (
    <Field label={label} error={error} hint={limits}>
      {(props) =>
        factor.kind === 'nominal' ? (
          <select {...props} value={value} onChange={(e) => { onChange(factor.key, e.target.value); }}>
            {factor.choices.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        ) : (
          <input
            {...props}
            type="text"
            inputMode="decimal"
            className="input--num"
            value={value}
            onChange={(e) => { onChange(factor.key, e.target.value); }}
          />
        )
      }
    </Field>
  );
}
