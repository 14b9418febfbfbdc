/**
 * The slider's anchors: a tick and its number for every labelled point, and the label texts
 * placed by {@link layoutAnchors} from their measured widths (one row, two alternating rows,
 * or the ends and the middle only), re-placed when the track's width or the language changes.
 * Labels left out are in the tick's title and in the slider's value text. The measured
 * copies draw their text from `data-text` in CSS, so the page holds each label's text once.
 */
import { useLayoutEffect, useRef, useState } from 'react';

import type { Lang } from '../../../shared/participantLink';
import type { Scale } from '../../items';
import { layoutAnchors } from './anchorLayout';
import type { AnchorLayout } from './anchorLayout';
import { percent } from './sliderMath';

/** Gap between two labels and between two numbers, px. */
const GAP_PX = 8;

interface Placement {
  layout: AnchorLayout;
  /** Every tick's number fits between its neighbours. */
  allNumbers: boolean;
}

const edge = (pct: number): string => (pct <= 0 ? ' is-start' : pct >= 100 ? ' is-end' : '');

function widthOf(element: Element | null | undefined): number {
  return element ? Math.ceil(element.getBoundingClientRect().width) + 1 : 0;
}

/** Measures the hidden copies of the labels and places the visible ones; null before layout. */
function measure(box: HTMLDivElement, scale: Scale): Placement | null {
  const width = box.clientWidth;
  if (width <= 0) return null;
  const copies = [...box.querySelectorAll('.p-slider__measure > [data-label]')];
  const sizes = scale.labels.map((label, i) => ({
    x: (percent(scale, label.value) / 100) * width,
    maxContent: widthOf(copies[i]?.querySelector('.p-slider__measure-max')),
    minContent: widthOf(copies[i]?.querySelector('.p-slider__measure-min')),
  }));
  const numberWidth = Math.max(0, ...copies.map((c) => widthOf(c.querySelector('.p-slider__measure-num'))));
  const xs = sizes.map((s) => s.x);
  const spacing = Math.min(Infinity, ...xs.slice(1).map((x, i) => x - (xs[i] ?? 0)));
  return { layout: layoutAnchors(sizes, width, GAP_PX), allNumbers: spacing >= numberWidth + GAP_PX };
}

export function SliderAnchors({ scale, lang }: { scale: Scale; lang: Lang }) {
  const box = useRef<HTMLDivElement>(null);
  const [placement, setPlacement] = useState<Placement | null>(null);
  const texts = scale.labels.map((l) => `${l.value}\u0000${l.text[lang]}`).join('\u0001');

  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const update = () => {
      setPlacement(measure(element, scale));
    };
    update();
    if (typeof ResizeObserver === 'undefined') return; // a test DOM: no layout to follow
    const observer = new ResizeObserver(update);
    observer.observe(element);
    return () => {
      observer.disconnect();
    };
    // `texts` stands for the labels shown (language, values); `scale` is a new object per render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [texts]);

  const placed = placement?.layout.labels ?? null;
  const shown = new Set(placed ? placed.map((p) => p.index) : scale.labels.map((_, i) => i));
  const rows = placement?.layout.rows ?? 1;
  return (
    <div ref={box} className="p-slider__anchors" aria-hidden="true" data-rows={rows}>
      <div className="p-slider__marks">
        {scale.labels.map((label, i) => {
          const pct = percent(scale, label.value);
          const text = label.text[lang];
          return (
            <span key={label.value} className={`p-slider__mark${edge(pct)}`} style={{ left: `${pct}%` }} title={shown.has(i) ? undefined : `${label.value} – ${text}`}>
              <span className="p-slider__tick" />
              {(shown.has(i) || placement?.allNumbers !== false) && <span className="p-slider__anchor-value">{label.value}</span>}
            </span>
          );
        })}
      </div>
      {Array.from({ length: rows }, (_, row) => (
        <div key={row} className="p-slider__label-row">
          {scale.labels.map((label, i) => {
            const p = placed?.find((q) => q.index === i && q.row === row);
            if (placed && !p) return null;
            if (!placed && row > 0) return null;
            return (
              <span
                key={label.value}
                className={`p-slider__anchor-text${p ? ` is-${p.align}` : ''}`}
                data-value={label.value}
                style={p ? { marginLeft: `${p.left}px`, width: `${p.width}px` } : undefined}
              >
                {label.text[lang]}
              </span>
            );
          })}
        </div>
      ))}
      <div className="p-slider__measure">
        {scale.labels.map((label) => (
          <span key={label.value} data-label={label.value}>
            <span className="p-slider__measure-max" data-text={label.text[lang]} />
            <span className="p-slider__measure-min" data-text={label.text[lang]} />
            <span className="p-slider__measure-num" data-text={label.value} />
          </span>
        ))}
      </div>
    </div>
  );
}
