// A guide's walk-through with a payer in it (issue 32): its ```sh blocks run in order in one bash, as a reader's
// terminal (test/docs/doc-examples.ts), and each checkout `url` an answer gives is paid in Chromium the way the
// guides tell the payer to: Webpay, the sandbox card 4051 8856 0044 6623, CVV 123. Used by
// test/browser/first-hour.test.ts (README) and test/browser/guides-with-payer.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import {
  apiBlocks,
  DocShell,
  idReplacements,
  jsonDocuments,
  shownButNotAnswered,
} from '../docs/doc-examples.ts';
import { launchChromium } from './browser-server.ts';
import { repoRoot, startServe, type ServeProcess } from './cli.ts';
import { freePort } from './net.ts';

/** A real `cobro serve` (sandbox) on an empty DATA_DIR and a free loopback port, with Chromium for the payer. */
export interface WalkServer {
  readonly dataDir: string;
  readonly serve: ServeProcess;
  readonly baseUrl: string;
  readonly browser: Browser;
  close(): Promise<void>;
}

export async function startWalkServer(dataDirPrefix: string): Promise<WalkServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), dataDirPrefix));
  const port = await freePort();
  const serve = await startServe({ DATA_DIR: dataDir, PORT: String(port), COBRO_MODE: 'sandbox' });
  const browser = await launchChromium();
  return {
    dataDir,
    serve,
    baseUrl: `http://127.0.0.1:${port}`,
    browser,
    async close() {
      await browser.close();
      await serve.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const sandboxCard = { number: '4051 8856 0044 6623', cvv: '123' } as const;
const blockTimeoutMs = 20_000;

/** The part of a guide from `heading` to the next heading of the same level. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const level = heading.split(' ')[0]!;
  const end = markdown.indexOf(`\n${level} `, start + heading.length);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/**
 * The payer's step: the checkout's card form, after choosing Webpay where a list is shown (its link reads "Webpay",
 * then its description, "Visa, Mastercard, ...").
 */
async function pay(browser: Browser, url: string): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    const method = page.getByRole('link', { name: /^Webpay\s*Visa/ });
    if ((await method.count()) > 0) await method.first().click();
    await page.fill('#card_number', sandboxCard.number);
    // Far off: the server checks the expiry against the real month, and 12/30 would be refused from 2031 on.
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', sandboxCard.cvv);
    await page.click('button[type=submit]');
    await page.getByText('Pago exitoso').first().waitFor();
  } finally {
    await page.close();
  }
}

const failed = (answer: unknown) =>
  typeof answer === 'string' || (answer as { status?: unknown }).status === 'failed';

/**
 * Runs every shell block of `walk` in one bash with `env`, the guide's placeholders replaced, ids the guide shows
 * replaced by the ones the server gave, and each checkout url paid in `browser`. A block with a `curl` must answer
 * JSON and no failure, and show no key or state it did not answer; one without (a `bin/cobro` command) must write nothing to stderr. Every answer, in order.
 */
export async function runWalk(
  walk: string,
  env: Record<string, string>,
  placeholders: ReadonlyMap<string, string>,
  browser: Browser,
): Promise<unknown[]> {
  const shell = new DocShell(
    { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    repoRoot,
  );
  const replacements = new Map(placeholders);
  const answers: unknown[] = [];
  try {
    for (const block of apiBlocks(walk, { commands: true })) {
      let script = block.script;
      for (const [from, to] of replacements) script = script.replaceAll(from, to);
      const { stdout, stderr } = await shell.run(script, blockTimeoutMs);
      const where = `line ${block.line} of the walk:\n${script}`;
      if (!/\bcurl\b/.test(script)) {
        expect(stderr, where).toBe('');
        continue;
      }
      const got = jsonDocuments(stdout);
      expect(got.length, `${where}\nprinted nothing (${stderr})`).toBeGreaterThan(0);
      expect(got.filter(failed), where).toEqual([]);
      // The answer the walk shows is the one the reader gets at that step (decision 1095).
      if (block.answerLater === null)
        expect(
          shownButNotAnswered(block.shown, got),
          `${where}\nshows what it did not answer`,
        ).toEqual([]);
      for (const [from, to] of idReplacements(block.shown, got)) replacements.set(from, to);
      for (const answer of got) {
        const url = (answer as { url?: unknown }).url;
        if (typeof url === 'string' && url.includes('/gateway/')) await pay(browser, url);
      }
      answers.push(...got);
    }
  } finally {
    shell.close();
  }
  return answers;
}
