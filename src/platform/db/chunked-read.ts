// Reads a large page (up to limits.pageSizeMax rows) as a run of bounded chunks, yielding the event loop between
// them. PGlite runs each query to completion on the main thread, so one 4000-row query held every other request
// for its whole length; in chunks, other requests run between them (issue 13 point 3). On PostgreSQL the extra
// round trips are a few per large page and nothing for the usual small one.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { limits } from '../../limits/index.ts';

/**
 * Up to `total` rows: `first(limit)` reads the first chunk (at the page's offset), `after(last, limit)` the rows
 * after the previous chunk's last row (keyset: the page's order must be strict, e.g. by a unique sequence).
 */
export async function readInChunks<Row>(
  total: number,
  first: (limit: number) => Promise<Row[]>,
  after: (last: Row, limit: number) => Promise<Row[]>,
): Promise<Row[]> {
  const chunkRowsMax = limits.dbReadChunkRowsMax;
  const rows = await first(Math.min(total, chunkRowsMax));
  let chunk = rows.length;
  for (let round = 1; chunk === chunkRowsMax && rows.length < total; round++) {
    if (round > Math.ceil(limits.pageSizeMax / chunkRowsMax))
      throw new Error('readInChunks: more chunks than the largest page holds');
    await nextTurn();
    const next = await after(rows[rows.length - 1]!, Math.min(total - rows.length, chunkRowsMax));
    chunk = next.length;
    rows.push(...next);
  }
  return rows;
}
