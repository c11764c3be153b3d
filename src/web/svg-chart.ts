import { type Html, html } from "./html.ts";

/** One block of a stacked bar: `series`'s share of `category`, with the hover text its `<title>` carries. */
export type ChartSegment = { category: string; series: string; value: number; title: string };

export type StackedBars = {
  /** The chart's accessible name (role="img" has no other text a screen reader reads). */
  label: string;
  /** The x axis, left to right; a category without segments is an empty slot. */
  categories: readonly string[];
  /** Stacking order, bottom up, and the legend's order; colours follow this order. */
  series: readonly string[];
  /** A value ≤ 0 draws nothing: every `<rect>` is something spent. */
  segments: readonly ChartSegment[];
  /** The y axis's tick labels. */
  axis: (value: number) => string;
  /** An x label for a category, or undefined for none (30 labels would overlap). */
  tick?: (category: string, index: number) => string | undefined;
};

// Okabe–Ito: told apart with the common colour-vision deficiencies; its yellow is left out (unreadable on white).
const PALETTE = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000"];
const WIDTH = 720;
const LEFT = 64;
const RIGHT = 12;
const TOP = 12;
const PLOT_HEIGHT = 200;
const LEGEND_ITEM = 150;
const LEGEND_ROW = 18;
const GRID_LINES = 4;

/** Coordinates to the hundredth: exact enough for a screen, short enough to keep the page small. */
const at = (n: number) => Math.round(n * 100) / 100;

/** The smallest 1, 2, 2.5 or 5 × 10ⁿ at or above `max`, so the axis ticks read as round numbers. */
export function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= max * (1 - 1e-12)) return step * magnitude;
  return 10 * magnitude;
}

/**
 * A stacked bar chart as inline SVG, drawn on the server: the setup page's CSP allows no script and no inline
 * style, so everything is a presentation attribute (fill, stroke, x, y, width, height) and the hover text is each
 * bar's `<title>`. Heights are proportional to the values on a 0-based axis. Every `<rect>` is a segment (the
 * legend's swatches are circles), so counting them counts what was drawn.
 */
export function stackedBarChart(chart: StackedBars): Html {
  const slot = (WIDTH - LEFT - RIGHT) / Math.max(1, chart.categories.length);
  const bar = slot * 0.7;
  const totals = new Map<string, number>();
  for (const s of chart.segments) if (s.value > 0) totals.set(s.category, (totals.get(s.category) ?? 0) + s.value);
  const top = niceCeiling(Math.max(0, ...totals.values()));
  const scale = PLOT_HEIGHT / top;
  const bottom = TOP + PLOT_HEIGHT;
  const perRow = Math.max(1, Math.floor((WIDTH - LEFT) / LEGEND_ITEM));
  const height = bottom + 28 + Math.ceil(chart.series.length / perRow) * LEGEND_ROW;
  const colour = (series: string) => PALETTE[Math.max(0, chart.series.indexOf(series)) % PALETTE.length];

  const grid = Array.from({ length: GRID_LINES + 1 }, (_, i) => {
    const value = (top * i) / GRID_LINES;
    const y = at(bottom - value * scale);
    return html`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y}" y2="${y}" stroke="${i ? "#e5e5e5" : "#888"}"/><text x="${LEFT - 6}" y="${at(y + 4)}" text-anchor="end" font-size="11" fill="#555">${chart.axis(value)}</text>`;
  });
  const bars = chart.categories.map((category, i) => {
    const x = at(LEFT + i * slot + (slot - bar) / 2);
    let stacked = 0;
    return chart.series.map((series) => {
      const segment = chart.segments.find((s) => s.category === category && s.series === series && s.value > 0);
      if (!segment) return html``;
      stacked += segment.value;
      return html`<rect x="${x}" y="${at(bottom - stacked * scale)}" width="${at(bar)}" height="${at(segment.value * scale)}" fill="${colour(series)}" data-category="${category}" data-series="${series}"><title>${segment.title}</title></rect>`;
    });
  });
  const ticks = chart.categories.map((category, i) => {
    const label = chart.tick?.(category, i);
    if (label === undefined) return html``;
    return html`<text x="${at(LEFT + i * slot + slot / 2)}" y="${bottom + 16}" text-anchor="middle" font-size="11" fill="#555">${label}</text>`;
  });
  const legend = chart.series.map((series, i) => {
    const x = LEFT + (i % perRow) * LEGEND_ITEM;
    const y = bottom + 28 + Math.floor(i / perRow) * LEGEND_ROW;
    return html`<circle cx="${x + 5}" cy="${y + 5}" r="5" fill="${colour(series)}"/><text x="${x + 14}" y="${y + 9}" font-size="12" fill="#1b1b1b">${series}</text>`;
  });
  return html`<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${chart.label}" font-family="system-ui, sans-serif">${grid}<g class="bars">${bars}</g>${ticks}<g class="legend">${legend}</g></svg>`;
}
