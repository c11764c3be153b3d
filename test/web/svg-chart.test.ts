import { describe, expect, test } from "bun:test";
import { niceCeiling, stackedBarChart } from "../../src/web/svg-chart.ts";

describe("stackedBarChart", () => {
  const chart = (segments: Parameters<typeof stackedBarChart>[0]["segments"]) =>
    stackedBarChart({
      label: 'Spend <per> "day"',
      categories: ["a", "b", "c"],
      series: ["p", "q"],
      segments,
      axis: (v) => `${v}`,
      tick: (c) => c,
    }).html;

  test("a rect per positive segment only; zero and negative values draw nothing", () => {
    const svg = chart([
      { category: "a", series: "p", value: 3, title: "a p" },
      { category: "a", series: "q", value: 0, title: "a q" },
      { category: "b", series: "q", value: -1, title: "b q" },
      { category: "c", series: "q", value: 1, title: "c q" },
    ]);
    expect(svg.match(/<rect /g)).toHaveLength(2);
    // Axis to 5 (the nice ceiling of 3) over 200 px: 3 → 120 px, 1 → 40 px.
    expect(svg).toContain('height="120" fill="#0072b2" data-category="a" data-series="p"');
    expect(svg).toContain('height="40" fill="#e69f00" data-category="c" data-series="q"');
  });

  test("text is escaped: the label, hover titles and legend names are never markup", () => {
    const svg = stackedBarChart({
      label: 'Spend <per> "day"',
      categories: ["a"],
      series: ["<b>"],
      segments: [{ category: "a", series: "<b>", value: 1, title: "<script>x</script>" }],
      axis: String,
    }).html;
    expect(svg).toContain('aria-label="Spend &lt;per&gt; &quot;day&quot;"');
    expect(svg).toContain("<title>&lt;script&gt;x&lt;/script&gt;</title>");
    expect(svg).toContain(">&lt;b&gt;</text>");
    expect(svg).not.toContain("<script");
    expect(svg).not.toContain("style=");
  });

  test("niceCeiling: the axis tops at 1, 2, 2.5 or 5 × 10ⁿ", () => {
    expect([0.05, 0.08, 3, 3500, 5000, 0.0004, 0].map(niceCeiling)).toEqual([0.05, 0.1, 5, 5000, 5000, 0.0005, 1]);
  });
});
