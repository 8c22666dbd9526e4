// Charts drawn on the server as SVG, so the home page needs no script and no chart library: one bar per day for
// sales, a stepped line for the wallet balance. Each chart carries a title and a description for screen readers
// (role="img"), and the page shows the same figures as a table. Only presentation attributes (fill, stroke) are
// used, so the page's Content-Security-Policy (no inline styles) holds.
// An SVG scales its text with its width, so one drawing cannot keep labels readable on both a desktop and a phone:
// each chart comes in two sizes, a wide one and a narrow one for phones (the stylesheet shows one of them), each
// with labels of at least 11 CSS pixels at the widths it is shown at.

export interface DayValue {
  /** Local date `YYYY-MM-DD`. */
  readonly day: string;
  readonly value: bigint;
}

export interface ChartOptions {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly points: readonly DayValue[];
  readonly format: (value: bigint) => string;
  /** `wide` (default): shown from 641 px up, about 570-1000 px across; `narrow`: on phones, about 300-580 px. */
  readonly size?: 'wide' | 'narrow';
}

interface Geometry {
  readonly width: number;
  readonly height: number;
  readonly fontPx: number;
  /** A day label every this many days, counted back from the last day. */
  readonly labelEveryDays: number;
}

/** viewBox sizes: 13 units at 640 across stay 11.6 px at 570 px; 14 at 360 stay 12.7 px at a 390 px phone's 326. */
const geometries: Readonly<Record<'wide' | 'narrow', Geometry>> = {
  wide: { width: 640, height: 240, fontPx: 13, labelEveryDays: 5 },
  narrow: { width: 360, height: 220, fontPx: 14, labelEveryDays: 7 },
};
const plot = { left: 12, right: 12, top: 28, bottom: 28 };

const escapes: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);
}

/** A pixel offset for value within [low, high] over `span` pixels, computed on bigints (money never becomes a float). */
function scale(value: bigint, low: bigint, high: bigint, span: number): number {
  if (high === low) return 0;
  return Number(((value - low) * BigInt(span * 100)) / (high - low)) / 100;
}

function geometryOf(o: ChartOptions): Geometry & { plotWidth: number; plotHeight: number } {
  const g = geometries[o.size ?? 'wide'];
  return {
    ...g,
    plotWidth: g.width - plot.left - plot.right,
    plotHeight: g.height - plot.top - plot.bottom,
  };
}

/** `DD-MM` under the last day and every `labelEveryDays` before it. */
function dayLabels(o: ChartOptions, x: (i: number) => number): string {
  const g = geometryOf(o);
  const last = o.points.length - 1;
  return o.points
    .map((p, i) =>
      (last - i) % g.labelEveryDays === 0
        ? `<text x="${x(i).toFixed(1)}" y="${g.height - 8}" font-size="${g.fontPx}" text-anchor="${i === last ? 'end' : 'middle'}" fill="#3b4452">${esc(`${p.day.slice(8, 10)}-${p.day.slice(5, 7)}`)}</text>`
        : '',
    )
    .join('');
}

function frame(o: ChartOptions, body: string, high: string, low: string): string {
  const { width, height, fontPx, plotHeight } = geometryOf(o);
  const baseline = plot.top + plotHeight;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-labelledby="${o.id}-title ${o.id}-desc" class="chart chart-${o.size ?? 'wide'}">` +
    `<title id="${o.id}-title">${esc(o.title)}</title><desc id="${o.id}-desc">${esc(o.description)}</desc>` +
    `<line x1="${plot.left}" y1="${plot.top}" x2="${width - plot.right}" y2="${plot.top}" stroke="#d5dae2" stroke-dasharray="4 4"/>` +
    `<line x1="${plot.left}" y1="${baseline}" x2="${width - plot.right}" y2="${baseline}" stroke="#6b7382"/>` +
    `<text x="${plot.left}" y="${plot.top - 9}" font-size="${fontPx}" fill="#3b4452">${esc(high)}</text>` +
    (low === ''
      ? ''
      : `<text x="${plot.left}" y="${baseline - 6}" font-size="${fontPx}" fill="#3b4452">${esc(low)}</text>`) +
    body +
    '</svg>'
  );
}

/** One bar per day, from zero up to the day's value. */
export function barChart(o: ChartOptions): string {
  const { plotWidth, plotHeight } = geometryOf(o);
  const max = o.points.reduce((m, p) => (p.value > m ? p.value : m), 0n);
  const slot = plotWidth / Math.max(o.points.length, 1);
  const baseline = plot.top + plotHeight;
  const x = (i: number) => plot.left + slot * i + slot / 2;
  const bars = o.points
    .map((p, i) => {
      const h = scale(p.value, 0n, max, plotHeight);
      return `<rect x="${(plot.left + slot * i + slot * 0.15).toFixed(1)}" y="${(baseline - h).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="#0b6e4f"><title>${esc(`${p.day}: ${o.format(p.value)}`)}</title></rect>`;
    })
    .join('');
  return frame(o, bars + dayLabels(o, x), `Máximo ${o.format(max)}`, '');
}

/** A stepped line through each day's closing value, between the lowest and highest of the period (zero included). */
export function stepChart(o: ChartOptions): string {
  const { plotWidth, plotHeight } = geometryOf(o);
  const values = o.points.map((p) => p.value);
  const max = values.reduce((m, v) => (v > m ? v : m), 0n);
  const min = values.reduce((m, v) => (v < m ? v : m), 0n);
  const slot = plotWidth / Math.max(o.points.length, 1);
  const baseline = plot.top + plotHeight;
  const x = (i: number) => plot.left + slot * i + slot / 2;
  const y = (v: bigint) => baseline - scale(v, min, max, plotHeight);
  const path = o.points
    .map(
      (p, i) =>
        `${i === 0 ? 'M' : 'H'}${x(i).toFixed(1)} ${i === 0 ? '' : 'V'}${y(p.value).toFixed(1)}`,
    )
    .join(' ');
  const last = o.points.at(-1);
  const dot =
    last === undefined
      ? ''
      : `<circle cx="${x(o.points.length - 1).toFixed(1)}" cy="${y(last.value).toFixed(1)}" r="4" fill="#0a5c8a"><title>${esc(`${last.day}: ${o.format(last.value)}`)}</title></circle>`;
  return frame(
    o,
    `<path d="${path}" fill="none" stroke="#0a5c8a" stroke-width="2.5"/>${dot}${dayLabels(o, x)}`,
    `Máximo ${o.format(max)}`,
    min < 0n ? `Mínimo ${o.format(min)}` : '',
  );
}
