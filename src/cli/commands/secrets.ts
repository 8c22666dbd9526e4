// `cobro secrets rekey`: every secret the database holds sealed again under a new COBRO_SECRET_KEY (decision 935),
// for a key that leaked or is due for rotation. It runs alone: every other Cobro process still holds the old key.
import {
  fail,
  ok,
  requireCtx,
  stringOption,
  type Command,
  type CommandOutput,
} from '../command.ts';

/** The new key in FILE (64 hexadecimal characters, as `openssl rand -hex 32` prints), or why not. */
async function newKeyFrom(file: string): Promise<Buffer | string> {
  const [{ readFileBounded }, { keyLimits }] = await Promise.all([
    import('../read-bounded.ts'),
    import('../../limits/index.ts'),
  ]);
  const read = await readFileBounded(file, keyLimits.secretKeyFileBytesMax);
  if (!read.ok) return read.error;
  const hex = read.text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    return `${file} must hold the new key: 64 hexadecimal characters (openssl rand -hex 32 > ${file})`;
  return Buffer.from(hex, 'hex');
}

export const secretsRekey: Command = {
  name: 'secrets rekey',
  summary: 'Seal every stored secret again under a new COBRO_SECRET_KEY (run with no cobro serve)',
  usage: 'cobro secrets rekey --new-key-file FILE',
  options: {
    'new-key-file': {
      type: 'string',
      valueName: 'FILE',
      description: 'a file holding the new key, 64 hexadecimal characters (required)',
    },
  },
  ownProcess: true,
  // Its audit row is written in its own transaction, which must commit before the sandbox key file is replaced.
  audit: 'own',
  examples: [
    'openssl rand -hex 32 > new.key && COBRO_SECRET_KEY=$(cat old.key) cobro secrets rekey --new-key-file new.key',
  ],
  needsDb: true,
  async run(ctx, args): Promise<CommandOutput> {
    const file = stringOption(args, 'new-key-file');
    if (file === undefined) return fail(`usage: ${this.usage}`, 2);
    const newKey = await newKeyFrom(file);
    if (typeof newKey === 'string') return fail(newKey, 2);
    const { rekeyDatabase } = await import('../../platform/auth/rekey-run.ts');
    const outcome = await rekeyDatabase(requireCtx(ctx), newKey);
    return outcome.ok ? ok(outcome.text) : fail(outcome.reason);
  },
};
