// Ranks the lines test/support/cpu-probe.ts wrote: `node test/support/cpu-report.ts /tmp/cpu.jsonl [count]`.
import fs from 'node:fs';
import path from 'node:path';

interface FileCpu {
  readonly file: string;
  readonly self: number;
  readonly children: number;
  readonly wallMs: number;
}

const [reportPath, countText = '15'] = process.argv.slice(2);
if (reportPath === undefined)
  throw new Error('usage: node test/support/cpu-report.ts REPORT.jsonl [count]');
const rows = fs
  .readFileSync(reportPath, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as FileCpu);
const cpu = (r: FileCpu) => r.self + r.children;
const total = rows.reduce((sum, r) => sum + cpu(r), 0);
process.stdout.write(
  `${rows.length} files, ${total.toFixed(0)} CPU s in test workers and their children\n`,
);
process.stdout.write('| file | CPU s | worker | children | wall s |\n|---|---:|---:|---:|---:|\n');
for (const r of [...rows].sort((a, b) => cpu(b) - cpu(a)).slice(0, Number(countText))) {
  const name = path.relative(process.cwd(), r.file);
  process.stdout.write(
    `| ${name} | ${cpu(r).toFixed(1)} | ${r.self.toFixed(1)} | ${r.children.toFixed(1)} | ${(r.wallMs / 1000).toFixed(1)} |\n`,
  );
}
