import { deleteStrayIdentity, findLeakedInstances, leakVerdict, sweptLabel, terminateLeakedInstance, unknownLines, type OpsContext } from '../../core/ops';
import type { LeakedInstance, SweepResult } from '../../core/provision';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import type { CliIO } from '../io';
import { duration, table } from '../table';

export const leaksCommand: CliCommand = {
  name: 'leaks',
  summary: 'find cloud instances with Skydeck tags that no cluster owns (and terminate them)',
  usage: `skydeck leaks [--terminate ID... | --terminate-all | --delete-identity NAME...] [-y]
  Lists this workspace's strays, then other workspaces' (their own state may still own them),
  in every region of the current account and of every account a cluster records. Whatever
  could not be listed is named as UNKNOWN and the exit code is 1.
  --terminate ID    terminate that instance (repeatable); needs -y
  --terminate-all   terminate every stray of this workspace; needs -y
  --delete-identity NAME  delete that stray cluster identity (AWS: the IAM role and its
                    instance profile), once its cluster's instances are terminated; needs -y
  Buckets Skydeck created that no row owns: skydeck storage ls --leaks`,
  flags: [{ name: 'terminate', takesValue: true, repeated: true }, { name: 'terminate-all' }, { name: 'delete-identity', takesValue: true, repeated: true }, { name: 'yes', short: 'y' }],
  async run(args, io, context) {
    if (args.positionals.length) throw new UsageError(`leaks takes no arguments (got ${args.positionals.map((p) => JSON.stringify(p)).join(' ')}); name instances with --terminate ID`);
    const ids = (args.flags.terminate as string[] | undefined) ?? [];
    const all = !!args.flags['terminate-all'];
    const identities = (args.flags['delete-identity'] as string[] | undefined) ?? [];
    if ((ids.length || all || identities.length) && !args.flags.yes) throw new UsageError(`${identities.length ? 'deleting identities' : 'terminating instances'} cannot be undone; pass -y to confirm`);
    const ctx = await context();
    if (!ctx.providers?.clouds.length) {
      io.out('No cloud providers are available in this version, so nothing can have leaked (local and ssh clusters create no instances).\n');
      return 0;
    }
    const sweep = await findLeakedInstances(ctx);
    for (const line of unknownLines(sweep)) io.err(`warning: could not list ${line}; strays there are unknown\n`);
    if (identities.length) return deleteIdentities(io, sweep, identities, ctx);
    if (!ids.length && !all) {
      io.out(`Listed: ${sweep.swept.map(sweptLabel).join('; ') || 'nothing'}\n`);
      print(io.out, `Leaked instances of this workspace (${sweep.workspaceId})`, sweep.thisWorkspace, sweep);
      print(io.out, 'Instances of other workspaces (check there before terminating)', sweep.otherWorkspaces, sweep);
      if (sweep.thisWorkspace.length) io.out('Terminate with: skydeck leaks --terminate ID -y   (or --terminate-all -y)\n');
      printIdentities(io.out, sweep);
      io.out('Buckets are swept apart: skydeck storage ls --leaks\n');
      return sweep.errors.length ? 1 : 0;
    }
    const everything = [...sweep.thisWorkspace, ...sweep.otherWorkspaces];
    const targets = all ? sweep.thisWorkspace : ids.map((id) => everything.find((l) => l.instance.id === id) ?? id);
    // "Every stray" is only known where the sweep could list: an incomplete one fails.
    let code = all && sweep.errors.length ? 1 : 0;
    for (const t of targets) {
      if (typeof t === 'string') {
        io.err(`skydeck leaks: ${t} is not a leaked instance (it is owned by a cluster, gone, or unknown)\n`);
        code = 1;
        continue;
      }
      const r = await terminateLeakedInstance(ctx, t);
      (r.confirmed ? io.out : io.err)(`${r.message}\n`);
      if (!r.confirmed) code = 1;
    }
    return code;
  },
};

/** Roles (and their instance profiles), service accounts, Blob role assignments of clusters no row owns: free, but still a grant on the buckets. */
function printIdentities(out: (t: string) => void, sweep: SweepResult): void {
  const list = sweep.strayIdentities ?? [];
  if (!list.length) return;
  out(`Cluster identities no cluster owns (${list.length}): a down deletes one once its cluster's instances are terminated; one left over (a down cut short, an autodown head) is deleted here once its instances are gone:\n`);
  out(table(['CLOUD', 'KIND', 'NAME', 'CLUSTER', 'WORKSPACE'], list.map((l) => [l.cloud, l.kind, l.name, l.cluster, l.workspace])));
  out('Delete with: skydeck leaks --delete-identity NAME -y   (AWS: the role and its instance profile; GCP: the service account; Azure: the id in parentheses, every Blob grant of that cluster)\n');
}

async function deleteIdentities(io: CliIO, sweep: SweepResult, names: string[], ctx: OpsContext): Promise<number> {
  let code = 0;
  for (const name of names) {
    const id = (sweep.strayIdentities ?? []).find((i) => i.name === name || i.name.endsWith(` (${name})`));
    if (!id) {
      io.err(`skydeck leaks: ${name} is not a stray cluster identity (owned by a cluster, gone, or in an account that could not be listed)\n`);
      code = 1;
      continue;
    }
    const r = await deleteStrayIdentity(ctx, id);
    (r.deleted ? io.out : io.err)(`${r.message}\n`);
    if (!r.deleted) code = 1;
  }
  return code;
}

function print(out: (t: string) => void, title: string, list: LeakedInstance[], sweep: SweepResult): void {
  if (!list.length) {
    out(`${title}: ${leakVerdict(0, sweep)}.\n`);
    return;
  }
  out(`${title}: ${leakVerdict(list.length, sweep)}:\n`);
  out(table(['CLOUD', 'INSTANCE', 'STATUS', 'CLUSTER', 'WORKSPACE', 'ZONE', 'AGE', 'COST SO FAR'], list.map((l) => [
    l.cloud, l.instance.id, l.instance.status, l.cluster, l.workspace, l.instance.zone ?? l.instance.region ?? '-', duration(l.ageMs / 1000),
    l.costSoFar !== undefined ? `~$${l.costSoFar.toFixed(2)}${l.instance.costPerHour !== undefined ? ` ($${l.instance.costPerHour}/h)` : ''}` : '-',
  ])));
}
