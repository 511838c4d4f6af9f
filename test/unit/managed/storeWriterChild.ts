// A second process writing the managed store (as the CLI submits while a controller runs):
// inserts `n` jobs named `child<i>`, one save each, then exits.
import { ManagedStore } from '../../../src/core/managed';
import { insertJob } from '../../../src/core/managed/jobRows';
import { thisCreator } from '../../../src/core/state';

async function main(file: string, n: number): Promise<void> {
  const s = await ManagedStore.open(file);
  for (let i = 0; i < n; i++) await s.write((db) => insertJob(db, { name: `child${i}`, tasks: ['run: echo hi\n'], envs: {}, now: 1000, creator: thisCreator() }));
  s.close();
}

main(process.argv[2], Number(process.argv[3])).catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(70);
});
