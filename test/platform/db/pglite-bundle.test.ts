// Decision 380: once PGlite is up, its file bundle's files read their bytes from pglite.data on first use and the
// 6 MB buffer they were views of is collected. Every file must still read as it did, PostgreSQL must still find a
// file it had not read yet (a time zone it loads when asked), and a file written must keep what was written.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releasePgliteBundle, type ReleasedBundle } from '../../../src/platform/db/pglite-bundle.ts';

interface TestFs {
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array | string): void;
}

const tokyo = '/pglite/share/postgresql/timezone/Asia/Tokyo';
const conversion = '/pglite/lib/postgresql/utf8_and_sjis.so';

describe('PGlite file bundle released after start', () => {
  let pglite: PGlite;
  let fsApi: TestFs;
  let released: ReleasedBundle | null;
  const before = new Map<string, Uint8Array>();

  beforeAll(async () => {
    pglite = await PGlite.create();
    fsApi = (pglite as unknown as { mod: { FS: TestFs } }).mod.FS;
    for (const file of [tokyo, conversion]) before.set(file, fsApi.readFile(file).slice());
    released = releasePgliteBundle(pglite);
  }, 60_000);

  afterAll(async () => {
    await pglite.close();
  });

  it('turns every file of the bundle into one read on first use, and the bundle holds no bytes any more', () => {
    expect(released).not.toBeNull();
    expect(released!.files).toBeGreaterThan(500);
    expect(released!.bytes).toBeGreaterThan(1_000_000);
    // PGlite itself keeps the buffer object; detached, it keeps none of its bytes.
    expect(released!.buffer.deref()?.byteLength ?? 0).toBe(0);
  });

  it('reads every file as it read before', () => {
    for (const [file, bytes] of before) expect(Buffer.from(fsApi.readFile(file)).equals(Buffer.from(bytes)), file).toBe(true);
  });

  it('lets PostgreSQL load a file of the bundle it had not read yet', async () => {
    await pglite.exec(`SET TIME ZONE 'America/Punta_Arenas'`);
    const res = await pglite.query<{ hour: string }>(`SELECT to_char(timestamptz '2026-07-01 12:00:00+00', 'HH24') AS hour`);
    expect(res.rows[0]?.hour).toBe('09');
  });

  it('keeps what is written to a file of the bundle', () => {
    const file = '/pglite/share/postgresql/timezone/Asia/Kolkata';
    fsApi.writeFile(file, 'written');
    expect(Buffer.from(fsApi.readFile(file)).toString()).toBe('written');
  });

  it('does nothing the second time: no file is a view of the bundle any more', () => {
    expect(releasePgliteBundle(pglite)).toBeNull();
  });
});

describe('PGlite file bundle checked against the disk', () => {
  let pglite: PGlite;
  let fsApi: TestFs;
  let dir: string;
  const bundle = path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.data');

  beforeAll(async () => {
    pglite = await PGlite.create();
    fsApi = (pglite as unknown as { mod: { FS: TestFs } }).mod.FS;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-bundle-'));
  }, 60_000);

  afterAll(async () => {
    await pglite.close();
    fs.rmSync(dir, { recursive: true });
  });

  it('releases nothing when the file on disk is not the bundle PGlite unpacked', () => {
    const other = path.join(dir, 'other.data');
    const bytes = fs.readFileSync(bundle);
    const middle = bytes.length >> 1;
    bytes.writeUInt8(bytes.readUInt8(middle) ^ 0xff, middle);
    fs.writeFileSync(other, bytes);
    expect(releasePgliteBundle(pglite, other)).toBeNull();
    expect(releasePgliteBundle(pglite, path.join(dir, 'missing.data'))).toBeNull();
    expect(Buffer.from(fsApi.readFile(tokyo)).length).toBeGreaterThan(0);
  });

  it('refuses to hand out a file whose bytes changed on disk after the release', async () => {
    const copy = path.join(dir, 'copy.data');
    fs.copyFileSync(bundle, copy);
    const released = releasePgliteBundle(pglite, copy);
    expect(released).not.toBeNull();
    expect(Buffer.from(fsApi.readFile(tokyo)).length).toBeGreaterThan(0);
    const bytes = fs.readFileSync(copy);
    bytes.fill(0);
    fs.writeFileSync(copy, bytes);
    // The file system call fails with EIO, and PostgreSQL, asked for a file it had not read, reports an error and
    // goes on answering.
    expect(() => fsApi.readFile(conversion)).toThrow(expect.objectContaining({ errno: 29 }));
    await expect(pglite.exec(`SET TIME ZONE 'Asia/Seoul'`)).rejects.toThrow();
    expect((await pglite.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
