/**
 * One rating item on the rating screen: its question, a hint for the keys, the scale widget
 * and, when it blocks the submission, why. Number keys choose a point of the focused item.
 */
import { useId } from 'react';
import type { KeyboardEvent } from 'react';

import type { Lang } from '../../../shared/participantLink';
import type { MessageKey, Translate } from '../../i18n';
import { isPointScale, isValidValue } from '../../items';
import type { RatingItem } from '../../items';
import { PointScale, pointId } from './PointScale';
import { SliderScale } from './SliderScale';

const HINTS: Record<RatingItem['scale']['kind'], MessageKey> = {
  acr5: 'hintPoints',
  dcr5: 'hintPoints',
  discrete: 'hintPoints',
  continuous: 'hintSlider',
  binary: 'hintBinary',
};

/** The point a key chooses on a point scale (digits; binary also y/j = yes, n = no), else null. */
export function pointForKey(item: RatingItem, key: string): number | null {
  if (!isPointScale(item.scale)) return null;
  const lower = key.toLowerCase();
  if (item.scale.kind === 'binary' && (lower === 'y' || lower === 'j')) return 1;
  if (item.scale.kind === 'binary' && lower === 'n') return 0;
  if (!/^[0-9]$/.test(key)) return null;
  const digit = Number(key);
  return isValidValue(item.scale, digit) ? digit : null;
}

/** The element that takes the focus for an item: its chosen point, its first point, or its slider. */
export function focusItem(name: string, item: RatingItem, value: number | undefined): void {
  const id = isPointScale(item.scale) ? pointId(name, value ?? firstShown(item)) : name;
  document.getElementById(id)?.focus();
}

const firstShown = (item: RatingItem): number => (item.scale.kind === 'binary' ? item.scale.max : Math.ceil(item.scale.min));

export function ItemField({
  item,
  name,
  index,
  value,
  missing,
  lang,
  t,
  onChange,
}: {
  item: RatingItem;
  /** Unique on the screen: the item's radio group name or its slider's id. */
  name: string;
  /** Its number on the screen, or null when it is the only item. */
  index: number | null;
  value: number | undefined;
  /** The submission was refused and this required item has no value. */
  missing: boolean;
  lang: Lang;
  t: Translate;
  onChange: (value: number) => void;
}) {
  const base = useId();
  const legendId = `${base}-q`;
  const hintId = `${base}-hint`;
  const errorId = `${base}-error`;
  const describedBy = [hintId, missing ? errorId : ''].join(' ').trim();
  const choose = (point: number) => {
    onChange(point);
    document.getElementById(pointId(name, point))?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLFieldSetElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const point = pointForKey(item, event.key);
    if (point === null) return;
    event.preventDefault();
    event.stopPropagation(); // handled here: the screen-wide keys must not act again
    choose(point);
  };
  return (
    <fieldset className={`p-item${missing ? ' p-item--missing' : ''}`} data-item={item.key} aria-describedby={describedBy} onKeyDown={onKeyDown}>
      <legend id={legendId} className="p-rating__question">
        {index !== null && <span className="p-item__number">{index + 1}. </span>}
        {item.question[lang]}
        {!item.required && <span className="p-item__optional"> {t('optional')}</span>}
      </legend>
      <p id={hintId} className="p-hint">
        {t(HINTS[item.scale.kind])}
      </p>
      {isPointScale(item.scale) ? (
        <PointScale item={item} name={name} value={value} lang={lang} t={t} onChange={onChange} />
      ) : (
        <SliderScale item={item} id={name} value={value} lang={lang} t={t} labelledBy={legendId} describedBy={describedBy} onChange={onChange} />
      )}
      {missing && (
        <p id={errorId} className="p-error">
          {t('required')}
        </p>
      )}
    </fieldset>
  );
}
