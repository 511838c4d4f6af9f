import { checkClouds, CLOUDS, credentialSharingLine } from '../../core/clouds/check';
import { shareCredentialsFromEnv } from '../opsContext';
import { loadSshPools } from '../../core/clouds/sshPools';
import { EXIT } from '../io';
import type { CliCommand } from '../command';
import { UsageError } from '../args';

export const checkCommand: CliCommand = {
  name: 'check',
  summary: 'which clouds are usable, and how to enable the others',
  usage: `skydeck check [CLOUD...]
  Checks ${CLOUDS.join(', ')} (or the ones named) with the credentials on this machine and
  prints, for each cloud that is not usable, what to do. Exits 1 if a named cloud is not usable.`,
  flags: [],
  async run(args, io) {
    const unknown = args.positionals.filter((c) => !(CLOUDS as readonly string[]).includes(c.toLowerCase()));
    if (unknown.length) throw new UsageError(`unknown cloud ${unknown.map((c) => JSON.stringify(c)).join(', ')} (clouds: ${CLOUDS.join(', ')})`);
    const results = await checkClouds({
      only: args.positionals,
      sshPools: () => loadSshPools(undefined, process.env.SKYDECK_SSH_POOLS || undefined),
    });
    for (const r of results) {
      io.out(`${r.ok ? 'enabled ' : 'disabled'}  ${r.cloud.padEnd(5)}  ${r.detail}\n`);
      if (r.fix) io.out(`${' '.repeat(17)}fix: ${r.fix}\n`);
    }
    const enabled = results.filter((r) => r.ok).map((r) => r.cloud);
    io.out(`\nenabled: ${enabled.length ? enabled.join(', ') : 'none'}\n`);
    io.out(`${credentialSharingLine(shareCredentialsFromEnv())}\n`);
    return args.positionals.length && enabled.length < results.length ? EXIT.failed : EXIT.ok;
  },
};
