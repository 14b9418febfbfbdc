/**
 * A continuous slider with labelled anchors. It starts with no value (no thumb) until it is
 * touched, clicked or a key is pressed: arrows move it (the first one to the midpoint),
 * Home/End jump to the ends, number keys to that point, PageUp/PageDown by ten steps.
 * Its anchors are placed so that their labels never overlap ({@link SliderAnchors}).
 */
import { useRef } from 'react';
import type { KeyboardEvent, PointerEvent } from 'react';

import type { Lang } from '../../../shared/participantLink';
import type { Translate } from '../../i18n';
import { labelFor } from '../../items';
import type { RatingItem } from '../../items';
import { SliderAnchors } from './SliderAnchors';
import { midpoint, percent, snap, valueForKey } from './sliderMath';

export function SliderScale({
  item,
  id,
  value,
  lang,
  t,
  labelledBy,
  describedBy,
  onChange,
}: {
  item: RatingItem;
  id: string;
  value: number | undefined;
  lang: Lang;
  t: Translate;
  labelledBy: string;
  describedBy: string | undefined;
  onChange: (value: number) => void;
}) {
  const { scale } = item;
  const track = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);

  const fromPointer = (clientX: number) => {
    const box = track.current?.getBoundingClientRect();
    if (!box || box.width <= 0) return;
    onChange(snap(scale, scale.min + ((clientX - box.left) / box.width) * (scale.max - scale.min)));
  };
  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    dragging.current = true;
    try {
      event.currentTarget.setPointerCapture(event.pointerId); // keep dragging when the finger leaves the track
    } catch {
      /* no pointer capture (old browser, test DOM): dragging stops at the track's edge */
    }
    event.currentTarget.focus();
    fromPointer(event.clientX);
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (dragging.current) fromPointer(event.clientX);
  };
  const onPointerUp = () => {
    dragging.current = false;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const next = valueForKey(scale, value, event.key);
    if (next === null) return;
    event.preventDefault();
    event.stopPropagation(); // the screen's own number keys must not act on this item again
    onChange(next);
  };

  const anchor = value === undefined ? null : labelFor(scale, value, lang);
  const valueText = value === undefined ? t('sliderEmpty') : anchor ? `${value} – ${anchor}` : String(value);
  return (
    <div className="p-slider">
      <div
        ref={track}
        id={id}
        className={`p-slider__track${value === undefined ? ' is-empty' : ''}`}
        role="slider"
        tabIndex={0}
        aria-labelledby={labelledBy}
        aria-describedby={describedBy}
        aria-valuemin={scale.min}
        aria-valuemax={scale.max}
        // ARIA requires a number; while empty the text says so and assistive technology reads the text.
        aria-valuenow={value ?? midpoint(scale)}
        aria-valuetext={valueText}
        data-empty={value === undefined ? 'true' : undefined}
        aria-orientation="horizontal"
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
      >
        <span className="p-slider__rail" aria-hidden="true" />
        {value !== undefined && (
          <>
            <span className="p-slider__fill" aria-hidden="true" style={{ width: `${percent(scale, value)}%` }} />
            <span className="p-slider__thumb" aria-hidden="true" style={{ left: `${percent(scale, value)}%` }} />
          </>
        )}
      </div>
      <SliderAnchors scale={scale} lang={lang} />
    </div>
  );
}
