// DATA_DIR is made on first use. One that names a file (or lies under one) is the operator's to fix: a line that
// names DATA_DIR (decision 690), not Node's "EEXIST: file already exists, mkdir".
import fs from 'node:fs';
import path from 'node:path';
import { StartupError, errorText } from './startup-error.ts';

export function makeDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new StartupError(
        `DATA_DIR ${path.resolve(dataDir)} is not a directory: set DATA_DIR to a directory (a missing one is created)`,
      );
    throw new StartupError(`cannot create DATA_DIR ${path.resolve(dataDir)}: ${errorText(error)}`);
  }
}
