import * as os from 'node:os';
import { formatDiagnostic, localMountNote, parseTaskFile, printable } from '../../core/task';
import { EXIT } from '../io';
import { UsageError } from '../args';
import type { CliCommand } from '../command';

export const validateCommand: CliCommand = {
  name: 'validate',
  summary: 'check task YAMLs',
  usage: `skydeck validate FILE...
  Prints one line per problem as file:line:col: severity: message and exits 2 if any file
  has an error (warnings alone exit 0).`,
  flags: [],
  async run(args, io) {
    const files = args.positionals;
    if (files.length === 0) throw new UsageError('validate needs at least one task YAML file');
    let errors = 0;
    let warnings = 0;
    for (const file of files) {
      const parsed = await parseTaskFile(file);
      for (const d of parsed.diagnostics) {
        (d.severity === 'error' ? io.err : io.out)(formatDiagnostic(d) + '\n');
        if (d.severity === 'error') errors++;
        else warnings++;
      }
      // A task naming no cloud launches on the local one unless --cloud says otherwise.
      for (const t of parsed.tasks) {
        const cloud = t.resources.cloud;
        const note = cloud === undefined || cloud === 'local' ? localMountNote(Object.keys(t.fileMounts), process.env.HOME || os.homedir()) : undefined;
        if (note) io.out(printable(`${file}: note: ${cloud ? '' : 'if launched on the local cloud: '}${note}`) + '\n');
      }
    }
    const n = `${files.length} file${files.length === 1 ? '' : 's'}`;
    io.out(errors ? `${errors} error(s), ${warnings} warning(s) in ${n}\n` : `${n} valid (${warnings} warning(s))\n`);
    return errors ? EXIT.usage : EXIT.ok;
  },
};
