// An operator's input file read whole, but never more than its bound: a pipe, a device or a FIFO has no size to
// check first (decision 645), so the read itself stops one byte past the bound and refuses the file. Asynchronous,
// since the command may run inside `cobro serve` (the ops socket), whose requests a pipe's writer must not stall.
import fs from 'node:fs/promises';

export type BoundedRead =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: string };

const cannotRead = (file: string, error: unknown): BoundedRead => ({
  ok: false,
  error: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
});

export async function readFileBounded(file: string, bytesMax: number): Promise<BoundedRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    return cannotRead(file, error);
  }
  try {
    const buffer = Buffer.alloc(bytesMax + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > bytesMax) return { ok: false, error: `${file} is larger than ${bytesMax} bytes` };
    return { ok: true, text: buffer.subarray(0, length).toString('utf8') };
  } catch (error) {
    return cannotRead(file, error);
  } finally {
    await handle.close();
  }
}
