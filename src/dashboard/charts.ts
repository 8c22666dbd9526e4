// Charts drawn on the server as SVG, so the home page needs no script and no chart library: one bar per day for
// sales, a stepped line for the wallet balance. Each chart carries a title and a description for screen readers
// (role="img"), and the page shows the same figures as a table. Only presentation attributes (fill, stroke) are
// used, so the page's Content-Security-Policy (no inline styles) holds.

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
}

const width = 640;
const height = 240;
const plot = { left: 12, right: 12, top: 28, bottom: 28 };
const plotWidth = width - plot.left - plot.right;
const plotHeight = height - plot.top - plot.bottom;

const escapes: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);
}

/** A pixel offset for value within [low, high] over `span` pixels, computed on bigints (money never becomes a float). */
function scale(value: bigint, low: bigint, high: bigint, span: number): number {
  if (high === low) return 0;
  return Number(((value - low) * BigInt(span * 100)) / (high - low)) / 100;
}

/** `DD-MM` under every fifth day and the last one. */
function dayLabels(points: readonly DayValue[], x: (i: number) => number): string {
  return points.map((p, i) => (i % 5 === 0 || i === points.length - 1
    ? `<text x="${x(i).toFixed(1)}" y="${height - 8}" font-size="11" text-anchor="middle" fill="#3b4452">${esc(`${p.day.slice(8, 10)}-${p.day.slice(5, 7)}`)}</text>`
    : '')).join('');
}

function frame(o: ChartOptions, body: string, high: string, low: string): string {
  const baseline = plot.top + plotHeight;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-labelledby="${o.id}-title ${o.id}-desc" class="chart">`
    + `<title id="${o.id}-title">${esc(o.title)}</title><desc id="${o.id}-desc">${esc(o.description)}</desc>`
    + `<line x1="${plot.left}" y1="${plot.top}" x2="${width - plot.right}" y2="${plot.top}" stroke="#d5dae2" stroke-dasharray="4 4"/>`
    + `<line x1="${plot.left}" y1="${baseline}" x2="${width - plot.right}" y2="${baseline}" stroke="#6b7382"/>`
    + `<text x="${plot.left}" y="${plot.top - 8}" font-size="12" fill="#3b4452">${esc(high)}</text>`
    + (low === '' ? '' : `<text x="${plot.left}" y="${baseline - 6}" font-size="12" fill="#3b4452">${esc(low)}</text>`)
    + body + '</svg>';
}

/** One bar per day, from zero up to the day's value. */
export function barChart(o: ChartOptions): string {
  const max = o.points.reduce((m, p) => (p.value > m ? p.value : m), 0n);
  const slot = plotWidth / Math.max(o.points.length, 1);
  const baseline = plot.top + plotHeight;
  const x = (i: number) => plot.left + slot * i + slot / 2;
  const bars = o.points.map((p, i) => {
    const h = scale(p.value, 0n, max, plotHeight);
    return `<rect x="${(plot.left + slot * i + slot * 0.15).toFixed(1)}" y="${(baseline - h).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="#0b6e4f"><title>${esc(`${p.day}: ${o.format(p.value)}`)}</title></rect>`;
  }).join('');
  return frame(o, bars + dayLabels(o.points, x), `Máximo ${o.format(max)}`, '');
}

/** A stepped line through each day's closing value, between the lowest and highest of the period (zero included). */
export function stepChart(o: ChartOptions): string {
  const values = o.points.map((p) => p.value);
  const max = values.reduce((m, v) => (v > m ? v : m), 0n);
  const min = values.reduce((m, v) => (v < m ? v : m), 0n);
  const slot = plotWidth / Math.max(o.points.length, 1);
  const baseline = plot.top + plotHeight;
  const x = (i: number) => plot.left + slot * i + slot / 2;
  const y = (v: bigint) => baseline - scale(v, min, max, plotHeight);
  const path = o.points.map((p, i) => `${i === 0 ? 'M' : 'H'}${x(i).toFixed(1)} ${i === 0 ? '' : 'V'}${y(p.value).toFixed(1)}`).join(' ');
  const last = o.points.at(-1);
  const dot = last === undefined ? '' : `<circle cx="${x(o.points.length - 1).toFixed(1)}" cy="${y(last.value).toFixed(1)}" r="4" fill="#0a5c8a"><title>${esc(`${last.day}: ${o.format(last.value)}`)}</title></circle>`;
  return frame(o, `<path d="${path}" fill="none" stroke="#0a5c8a" stroke-width="2.5"/>${dot}${dayLabels(o.points, x)}`, `Máximo ${o.format(max)}`, min < 0n ? `Mínimo ${o.format(min)}` : '');
}
