// PGlite unpacks its file bundle (pglite.data: PostgreSQL's share and lib files, 6.2 MB) into Emscripten's memory
// file system as views of ONE buffer, kept for the life of the process although a started database reads few of
// those files again (initdb's, the encodings', the extensions' are for other setups). Once PGlite is up, each file
// still backed by that buffer reads its bytes from pglite.data on disk the first time anything opens it, and the
// buffer goes (decision 380). A file read or written keeps its own copy, exactly as before.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { limits } from '../../limits.ts';

/** The parts of Emscripten's FS this reads: a tree of nodes whose files hold their bytes in `contents`. */
interface FsNode {
  readonly mode: number;
  readonly mounted: { readonly root: FsNode } | null;
  contents: unknown;
}
interface EmscriptenFs {
  readonly root: FsNode;
  /** What a file system call throws to fail with an errno: the only error Emscripten turns into one. */
  readonly ErrnoError: new (errno: number) => Error;
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
}

/** Emscripten's EIO (its ERRNO_CODES follow WASI's numbering). */
const errnoEio = 29;

export interface ReleasedBundle {
  /** Files now read from disk on first use. */
  readonly files: number;
  /** The bundle's size, no longer held in memory once nothing reads its files. */
  readonly bytes: number;
  /** The bundle's buffer, detached (no bytes left), for the tests to see. */
  readonly buffer: WeakRef<ArrayBuffer>;
}

/** Every file of the memory file system whose bytes are a view of a buffer; null when the walk met its bounds. */
function filesOf(fsApi: EmscriptenFs): { node: FsNode; view: Uint8Array }[] | null {
  const found: { node: FsNode; view: Uint8Array }[] = [];
  let visited = 0;
  let stopped = false;
  const walk = (at: FsNode, depth: number): void => {
    const node = at.mounted?.root ?? at;
    visited += 1;
    if (depth > limits.pgliteBundleDepthMax || visited > limits.pgliteBundleFilesMax) {
      stopped = true;
      return;
    }
    if (fsApi.isFile(node.mode)) {
      if (node.contents instanceof Uint8Array) found.push({ node, view: node.contents });
      return;
    }
    // A directory of the memory file system lists its children in `contents`; other mounts (the data directory on
    // disk) keep none.
    const children = node.contents;
    if (!fsApi.isDir(node.mode) || children === null || typeof children !== 'object' || ArrayBuffer.isView(children)) return;
    for (const child of Object.values(children as Record<string, FsNode>)) walk(child, depth + 1);
  };
  walk(fsApi.root, 0);
  // A file the walk did not reach would still hold a view of the buffer once it is detached.
  return stopped ? null : found;
}

function digestOf(bytes: Uint8Array): string {
  return crypto.createHash('sha1').update(bytes).digest('base64');
}

/** One file's bytes from the bundle on disk, or null when they are not the ones PGlite unpacked. */
function readRange(bundlePath: string, offset: number, length: number, digest: string): Uint8Array | null {
  const bytes = new Uint8Array(length);
  let fd: number;
  try {
    fd = fs.openSync(bundlePath, 'r');
  } catch {
    return null;
  }
  try {
    let done = 0;
    while (done < length) {
      const n = fs.readSync(fd, bytes, done, length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return done === length && digestOf(bytes) === digest ? bytes : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Its own function, so that the accessor's closure holds this file's place and nothing of the bundle. */
function readOnFirstUse(fsApi: EmscriptenFs, node: FsNode, bundlePath: string, view: Uint8Array): void {
  const offset = view.byteOffset;
  const length = view.byteLength;
  const digest = digestOf(view);
  Object.defineProperty(node, 'contents', {
    configurable: true,
    enumerable: true,
    get(): Uint8Array {
      const bytes = readRange(bundlePath, offset, length, digest);
      // pglite.data replaced under a running process (an upgrade in place): the call fails with EIO, which
      // PostgreSQL reports as an error and survives; any other exception would unwind through its WebAssembly.
      if (bytes === null) throw new fsApi.ErrnoError(errnoEio);
      settle(node, bytes);
      return bytes;
    },
    set(value: unknown) {
      settle(node, value);
    },
  });
}

/** Whether the file on disk holds the bytes PGlite unpacked (another copy of the package could sit elsewhere). */
function sameAsOnDisk(bundlePath: string, bytes: Uint8Array): boolean {
  const chunk = Buffer.alloc(limits.pgliteBundleCompareChunkBytes);
  const fd = fs.openSync(bundlePath, 'r');
  try {
    for (let at = 0; at < bytes.byteLength;) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.byteLength, bytes.byteLength - at), at);
      if (n <= 0 || Buffer.compare(chunk.subarray(0, n), bytes.subarray(at, at + n)) !== 0) return false;
      at += n;
    }
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

function settle(node: FsNode, contents: unknown): void {
  Object.defineProperty(node, 'contents', { value: contents, writable: true, configurable: true, enumerable: true });
}

/** Where PGlite read its bundle from: beside its own entry point (`new URL('./pglite.data', import.meta.url)`). */
function defaultBundlePath(): string | null {
  try {
    return path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.data');
  } catch {
    return null;
  }
}

/**
 * Turns every file of the started PGlite's bundle into one read from pglite.data on first use. Null, with nothing
 * changed, when this PGlite does not look as expected (another build, a bundle of the caller's own, a pglite.data on
 * disk other than the one it unpacked).
 */
export function releasePgliteBundle(pglite: PGlite, bundlePath: string | null = defaultBundlePath()): ReleasedBundle | null {
  const fsApi = (pglite as unknown as { mod?: { FS?: EmscriptenFs } }).mod?.FS;
  if (fsApi?.root === undefined || bundlePath === null) return null;
  let bundleBytes: number;
  try {
    bundleBytes = fs.statSync(bundlePath).size;
  } catch {
    return null;
  }
  const all = filesOf(fsApi);
  if (all === null) return null;
  const files = all.filter(({ view }) => view.buffer.byteLength === bundleBytes && view.byteLength > 0);
  const buffer = files[0]?.view.buffer;
  if (!(buffer instanceof ArrayBuffer) || buffer.resizable || files.some(({ view }) => view.buffer !== buffer)) return null;
  if (!sameAsOnDisk(bundlePath, new Uint8Array(buffer))) return null;
  for (const { node, view } of files) readOnFirstUse(fsApi, node, bundlePath, view);
  // PGlite's own start-up closure keeps the bundle's ArrayBuffer for the life of the instance: detaching it is what
  // frees its bytes. Every view of it that a file held was replaced above.
  buffer.transfer(0);
  return { files: files.length, bytes: bundleBytes, buffer: new WeakRef(buffer) };
}
