import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { storageLs } from './storageLs';
import { storageDelete } from './storageDelete';

export const storageCommand: CliCommand = {
  name: 'storage',
  summary: 'list the buckets Skydeck created, or delete one (with proof)',
  usage: `skydeck storage ls [--leaks]
  Buckets this workspace's state records: store, status, owner cluster, persistent.
  --leaks       also list buckets with Skydeck's tag that no row owns (this workspace's, then others')
skydeck storage delete NAME [--store s3|gcs|azure|r2] [--yes] [--force]
  Deletes every object, then the bucket, and prints the store's proof that it is gone.
  --yes         do not ask for confirmation
  --force       also delete a bucket Skydeck did not create (or whose tag is not its row's)
  --store       which store, when the name is recorded in several (or not at all)`,
  flags: [{ name: 'leaks' }, { name: 'yes', short: 'y' }, { name: 'force' }, { name: 'store', takesValue: true }],
  async run(args, io, context) {
    const [sub, ...rest] = args.positionals;
    if (sub === 'ls') {
      if (rest.length) throw new UsageError('storage ls takes no arguments');
      return storageLs(io, await context(), !!args.flags.leaks);
    }
    if (sub === 'delete') {
      if (rest.length !== 1) throw new UsageError('storage delete takes one bucket name');
      return storageDelete(io, await context(), rest[0], args.flags);
    }
    throw new UsageError(sub ? `unknown storage command "${sub}" (ls, delete)` : 'storage needs a command: ls or delete');
  },
};
