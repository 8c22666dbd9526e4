// Decision 910: a subscription client's e-mail names one person (reference §7.2: GET/PUT/DELETE
// /api/suclient/{email}; the Oneclick user's e-mail), and e-mail addresses are used without regard to case. Before,
// `Ana@x.cl` and `ana@x.cl` were two live clients and GET /api/suclient/ANA@X.CL found neither; now one live client
// per e-mail in any case, and lookups ignore case. Clients that already collided are kept (migration 0740).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { sql } from 'kysely';
import { createSuClient, sampleClient } from './helpers.ts';
import {
  down as caseSensitive,
  up as caseInsensitive,
} from '../../../src/platform/db/migrations/0740-suclient-email-any-case.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('a subscription client e-mail in another case (decision 910)', () => {
  it('is the same client: a second create is refused, lookups find the first', async () => {
    const a = await t.createAccount('Mayúsculas');
    const id = await createSuClient(t, a, { email: 'Ana@Example.cl' });
    const again = await t.call(a, {
      method: 'POST',
      url: '/api/suclient',
      sign: true,
      body: { ...sampleClient, email: 'ana@example.cl' },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().errors).toEqual({ email: 'already registered' });
    const got = await t.call(a, { method: 'GET', url: '/api/suclient/ANA@EXAMPLE.CL', sign: true });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ id, email: 'Ana@Example.cl' });
  });

  it('is taken when another client changes its e-mail to it', async () => {
    const a = await t.createAccount('Cambio de correo');
    await createSuClient(t, a, { email: 'luis@example.cl' });
    const other = await createSuClient(t, a, { email: 'otro@example.cl' });
    const put = await t.call(a, {
      method: 'PUT',
      url: `/api/suclient/${other}`,
      sign: true,
      body: { email: 'LUIS@example.cl' },
    });
    expect(put.statusCode).toBe(400);
    expect(put.json().errors).toEqual({ email: 'already registered' });
  });

  it('two clients changing to one e-mail at once: one gets it, the other a 400, never a 500', async () => {
    const a = await t.createAccount('Carrera de correos');
    for (let round = 0; round < 5; round += 1) {
      const ids = [
        await createSuClient(t, a, { email: `uno-${round}@example.cl` }),
        await createSuClient(t, a, { email: `dos-${round}@example.cl` }),
      ];
      const puts = await Promise.all(
        ids.map((id, i) =>
          t.call(a, {
            method: 'PUT',
            url: `/api/suclient/${id}`,
            sign: true,
            body: { email: i === 0 ? `Tres-${round}@example.cl` : `tres-${round}@EXAMPLE.cl` },
          }),
        ),
      );
      expect(puts.map((p) => p.statusCode).sort()).toEqual([200, 400]);
      expect(puts.find((p) => p.statusCode === 400)!.json().errors).toEqual({
        email: 'already registered',
      });
    }
  });

  it('migration 0740 keeps clients that already collided, each found by its own spelling', async () => {
    const a = await t.createAccount('Gemelos');
    await caseSensitive(t.ctx.db);
    try {
      // Written as the old schema stood, without the app's statements (PostgreSQL keeps them prepared, decision 230).
      const [first, twin] = ['cl00000000000000000e01', 'cl00000000000000000e02'];
      for (const [id, email] of [
        [first, 'Eva@example.cl'],
        [twin, 'eva@example.cl'],
      ] as const)
        await sql`INSERT INTO su_clients (id, account_id, email, name, phone, created_at)
                  VALUES (${id}, ${a.id}, ${email}, 'Eva', '923122312', now())`.execute(t.ctx.db);
      await caseInsensitive(t.ctx.db);
      const byOwn = async (email: string) =>
        (await t.call(a, { method: 'GET', url: `/api/suclient/${email}`, sign: true })).json().id;
      expect(await byOwn('Eva@example.cl')).toBe(first);
      expect(await byOwn('eva@example.cl')).toBe(twin);
      expect(await byOwn('EVA@EXAMPLE.CL')).toBe(first);
      const third = await t.call(a, {
        method: 'POST',
        url: '/api/suclient',
        sign: true,
        body: { ...sampleClient, email: 'EVA@example.cl' },
      });
      expect(third.statusCode).toBe(400);
      // A twin keeps its own spelling when it changes something else, and leaves the pair with a new e-mail.
      const same = await t.call(a, {
        method: 'PUT',
        url: `/api/suclient/${twin}`,
        sign: true,
        body: { email: 'eva@example.cl', name: 'Eva Dos' },
      });
      expect(same.statusCode).toBe(200);
      const moved = await t.call(a, {
        method: 'PUT',
        url: `/api/suclient/${twin}`,
        sign: true,
        body: { email: 'eva2@example.cl' },
      });
      expect(moved.statusCode).toBe(200);
      const reused = await t.call(a, {
        method: 'POST',
        url: '/api/suclient',
        sign: true,
        body: { ...sampleClient, email: 'Eva2@example.cl' },
      });
      expect(reused.statusCode).toBe(400);
    } finally {
      // A failed step must not leave the shared database on the old index.
      await caseInsensitive(t.ctx.db).catch(() => undefined);
    }
  });
});
