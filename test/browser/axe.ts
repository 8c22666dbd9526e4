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
}

/** Runs axe-core (WCAG 2.x A and AA rules and best practices) on the page as it is now. */
async function axeViolations(page: Page): Promise<readonly AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{
            violations: Array<{
              id: string;
              impact: string | null;
              help: string;
              nodes: unknown[];
            }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
    }));
  });
}

/** Only what issue 32 holds every page to: no critical or serious violation. */
export async function seriousAxeViolations(page: Page): Promise<readonly AxeViolation[]> {
  return (await axeViolations(page)).filter(
    (v) => v.impact === 'critical' || v.impact === 'serious',
  );
}
