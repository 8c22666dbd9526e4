// axe-core in a Playwright page: the violations a payer or merchant would meet, critical and serious first.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import type { Page } from 'playwright-core';

const axeSource = fs.readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: number;
  /** The first offending element's selector, so a failure names where to look. */
  readonly target: string;
}

/** The WCAG 2.0, 2.1 and 2.2 level A and AA rules: what the payer's pages are held to (decision 1135). */
const wcagAaTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * Runs axe-core on the page as it is now: every rule it runs by default (WCAG 2.x A and AA and best practices),
 * or only the rules with one of `tags`.
 */
async function axeViolations(
  page: Page,
  tags: readonly string[] | null = null,
): Promise<readonly AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async (only) => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{
            violations: Array<{
              id: string;
              impact: string | null;
              help: string;
              nodes: Array<{ target: unknown[] }>;
            }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(
      (globalThis as unknown as { document: unknown }).document,
      only === null ? {} : { runOnly: { type: 'tag', values: only } },
    );
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
      target: String(v.nodes[0]?.target.join(' ') ?? ''),
    }));
  }, tags);
}

/** Only what issue 32 holds every page to: no critical or serious violation. */
export async function seriousAxeViolations(page: Page): Promise<readonly AxeViolation[]> {
  return (await axeViolations(page)).filter(
    (v) => v.impact === 'critical' || v.impact === 'serious',
  );
}

/** The critical and serious violations of WCAG 2.x A and AA rules only (the payer's pages, decision 1135). */
export async function seriousWcagViolations(page: Page): Promise<readonly AxeViolation[]> {
  return (await axeViolations(page, wcagAaTags)).filter(
    (v) => v.impact === 'critical' || v.impact === 'serious',
  );
}
