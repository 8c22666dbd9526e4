// WCAG AA contrast of the dashboard's colours (issue 16 point 1), read from its stylesheet: text with its own
// background at 4.5:1, text without one at 4.5:1 on both surfaces it can sit on (the page and the white cards),
// and the input and tab borders at 3:1 (non-text contrast). A new colour that fails is caught here.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const css = fs.readFileSync(
  new URL('../../src/dashboard/assets/dashboard.css', import.meta.url),
  'utf8',
);

function luminance(hex: string): number {
  const full =
    hex.length === 4
      ? hex
          .slice(1)
          .split('')
          .map((c) => c + c)
          .join('')
      : hex.slice(1);
  const channels = [0, 2, 4]
    .map((i) => parseInt(full.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2];
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const hex = '(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3})\\b';
const rules = [...css.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map(([, selector, body]) => ({
  selector: selector!.replace(/\s+/g, ' ').trim(),
  color: new RegExp(`(?:^|;)\\s*color:\\s*${hex}`).exec(body!)?.[1],
  background: new RegExp(`(?:^|;)\\s*background(?:-color)?:\\s*${hex}`).exec(body!)?.[1],
  border: new RegExp(`border(?:-color)?:[^;]*?${hex}`).exec(body!)?.[1],
}));
const pageBackground = rules.find((r) => r.selector === 'body')!.background!;
const cardBackground = '#ffffff';

describe('dashboard colours', () => {
  it("reads the stylesheet's rules", () => {
    expect(pageBackground).toBe('#f3f5f8');
    expect(rules.filter((r) => r.color !== undefined).length).toBeGreaterThan(20);
  });

  it('gives all text 4.5:1 against its background', () => {
    const failures: string[] = [];
    for (const r of rules) {
      if (r.color === undefined) continue;
      const surfaces =
        r.background !== undefined ? [r.background] : [pageBackground, cardBackground];
      for (const surface of surfaces) {
        const ratio = contrast(r.color, surface);
        if (ratio < 4.5)
          failures.push(`${r.selector}: ${r.color} on ${surface} is ${ratio.toFixed(2)}:1`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('gives the borders that mark a control 3:1 against the card', () => {
    const controls = rules.filter((r) => /^input, select$|^\.tabs a$/.test(r.selector));
    expect(controls).toHaveLength(2);
    for (const r of controls)
      expect(contrast(r.border!, cardBackground), r.selector).toBeGreaterThanOrEqual(3);
  });
});
