/**
 * Zoom and pan of an SVG drawing of `width` × `height` in a viewport of the container's
 * width: fit-to-width on open (top-left of the drawing, i.e. the tree's root, visible),
 * buttons, wheel (zoom about the pointer) and drag (pan).
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface View {
  x: number;
  y: number;
  k: number;
}

const MIN_K = 0.05;
const MAX_K = 4;
/** jsdom and hidden containers report width 0: fall back to the old fixed box. */
const FALLBACK_WIDTH = 1000;

const clampK = (k: number) => Math.min(MAX_K, Math.max(MIN_K, k));

/** Scale that fits `width` into `viewport` (never enlarges beyond 1). */
export function fitView(width: number, viewport: number): View {
  const k = clampK(Math.min(1, viewport / Math.max(1, width)));
  return { x: Math.max(0, (viewport - width * k) / 2), y: 0, k };
}

/** Zooms by `factor` keeping the point (px, py) of the viewport fixed. */
export function zoomAt(view: View, factor: number, px: number, py: number): View {
  const k = clampK(view.k * factor);
  const f = k / view.k;
  return { k, x: px - (px - view.x) * f, y: py - (py - view.y) * f };
}

export function useZoomPan(width: number, height: number) {
  const boxRef = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState(FALLBACK_WIDTH);
  const [view, setView] = useState<View>(() => fitView(width, FALLBACK_WIDTH));

  useLayoutEffect(() => {
    const w = boxRef.current?.clientWidth ?? 0;
    const width_ = w > 0 ? w : FALLBACK_WIDTH;
    setViewport(width_);
    setView(fitView(width, width_));
    // re-fit when the drawing's size changes (a subtree collapsed or expanded)
  }, [width, height]);

  const fit = useCallback(() => {
    const w = boxRef.current?.clientWidth ?? 0;
    setView(fitView(width, w > 0 ? w : viewport));
  }, [width, viewport]);
  const zoom = useCallback(
    (factor: number) => {
      setView((v) => zoomAt(v, factor, viewport / 2, 0));
    },
    [viewport],
  );

  // wheel: a non-passive listener, so the page does not scroll while zooming
  useEffect(() => {
    const box = boxRef.current;
    if (!box) return undefined;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const rect = box.getBoundingClientRect();
      setView((v) => zoomAt(v, e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - rect.left, e.clientY - rect.top));
    };
    box.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      box.removeEventListener('wheel', onWheel);
    };
  }, []);

  const dragged = useRef(false);
  const drag = useRef<{ x: number; y: number; vx: number; vy: number; moved: boolean } | null>(null);
  const handlers = {
    onPointerDown: (e: React.PointerEvent) => {
      drag.current = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y, moved: false };
    },
    onPointerMove: (e: React.PointerEvent) => {
      const d = drag.current;
      if (!d) return;
      const dx = e.clientX - d.x;
      const dy = e.clientY - d.y;
      if (!d.moved && Math.hypot(dx, dy) < 4) return; // a click, not a drag
      if (!d.moved) e.currentTarget.setPointerCapture(e.pointerId);
      d.moved = true;
      setView((v) => ({ ...v, x: d.vx + dx, y: d.vy + dy }));
    },
    onPointerUp: () => {
      dragged.current = drag.current?.moved ?? false;
      drag.current = null;
    },
  };
  // the box's height follows the fitted drawing, not the zoom (the page must not jump)
  const viewportHeight = Math.min(640, Math.max(240, height * fitView(width, viewport).k + 20));
  /** Whether the last pointer gesture was a drag (then it must not toggle a node). */
  const wasDrag = () => dragged.current;
  return { boxRef, view, fit, zoom, handlers, viewportHeight, wasDrag };
}
