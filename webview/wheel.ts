/**
 * What a wheel event over the graph does: zoom x around the pointer (about 15 % per notch); shift
 * or a sideways swipe pans. A trackpad pinch arrives as a wheel event with ctrlKey and small
 * deltas: it zooms at about the speed of the fingers (a pixel of pinch is worth about 1 % of zoom).
 */

/** Zoom per px of wheel delta: a mouse notch (100 px) is about 15 %. */
const WHEEL_RATE = 0.0015;
/** Zoom per px of pinch delta (ctrl+wheel from a trackpad: a few px per frame): about 1 %. */
const PINCH_RATE = 0.01;

/** A wheel gesture: pan x by `dx` px, or zoom x by `factor` around screen x `at` (px in the graph). */
export type WheelGesture = { pan: number } | { zoom: number; at: number };

/** The gesture of a wheel event; `left`: the graph container's left edge in client px. */
export function wheelGesture(e: Pick<WheelEvent, 'deltaMode' | 'deltaX' | 'deltaY' | 'shiftKey' | 'ctrlKey' | 'clientX'>, left: number): WheelGesture {
  const unit = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
  const dx = e.deltaX * unit;
  const dy = e.deltaY * unit;
  if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) return { pan: -(e.shiftKey ? dy || dx : dx) };
  return { zoom: Math.exp(-dy * (e.ctrlKey ? PINCH_RATE : WHEEL_RATE)), at: e.clientX - left };
}
