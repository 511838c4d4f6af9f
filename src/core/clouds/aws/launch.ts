import { CreateTagsCommand, StartInstancesCommand, type EC2Client, type Instance, type RunInstancesCommandInput } from '@aws-sdk/client-ec2';
import { ProviderError, type RunRequest, type RunResult } from '../provider';
import type { InstanceType } from '../../catalog';
import { ec2Call } from './errors';
import { runInstances } from './runRetry';
import { resolveImage, imageIdFor } from './images';
import { DEFAULT_DISK_GB, shapeOf } from '../nodeShape';
import { pickInstanceType } from './shape';
import { TAG_HEAD, tagsOf } from './status';
import type { AwsProviderOptions } from './options';

export interface LaunchContext {
  ec2: EC2Client;
  region: string;
  opts: AwsProviderOptions;
  catalog(): Promise<InstanceType[]>;
  keyPair(): Promise<string>;
  group(): Promise<string>;
  /** The cluster's instance profile for its S3 buckets; undefined when it mounts none. */
  profile(): Promise<string | undefined>;
}

const state = (i: Instance) => i.State?.Name ?? 'pending';

/**
 * Brings the uid's instances up to req.numNodes, as SkyPilot's run_instances does: stopped
 * ones are started (their disks are the user's data), only the shortfall is created.
 */
export async function launch(ctx: LaunchContext, req: RunRequest, existing: Instance[]): Promise<RunResult> {
  const live = existing.filter((i) => !['shutting-down', 'terminated'].includes(state(i)));
  if (live.some((i) => state(i) === 'stopping')) {
    throw new ProviderError('transient', 'some instances are still stopping; they can be started once stopped');
  }
  const stopped = live.filter((i) => state(i) === 'stopped').map((i) => i.InstanceId!);
  if (stopped.length) await ec2Call('StartInstances', () => ctx.ec2.send(new StartInstancesCommand({ InstanceIds: stopped })));
  const need = req.numNodes - live.length;
  if (need <= 0) return { created: [], resumed: stopped };

  const shape = shapeOf(req);
  const type = pickInstanceType(req.placement, shape, await ctx.catalog());
  const image = await resolveImage(ctx.ec2, ctx.region, imageIdFor(shape.imageId, ctx.region), type.arch ?? 'x86_64', ctx.opts);
  const [keyName, groupId, profile] = [await ctx.keyPair(), await ctx.group(), await ctx.profile()];
  const tags = Object.entries({ ...req.tags, Name: req.clusterName }).map(([Key, Value]) => ({ Key, Value }));
  const spot = req.placement.useSpot;
  const input: RunInstancesCommandInput = {
    ImageId: image.id, InstanceType: type.name as RunInstancesCommandInput['InstanceType'],
    // All or nothing: a half-created cluster in a zone short of capacity is worse than none.
    MinCount: need, MaxCount: need, KeyName: keyName, SecurityGroupIds: [groupId],
    BlockDeviceMappings: [{ DeviceName: image.rootDevice, Ebs: { VolumeSize: shape.diskSize ?? DEFAULT_DISK_GB, VolumeType: 'gp3', DeleteOnTermination: true } }],
    TagSpecifications: [{ ResourceType: 'instance', Tags: tags }, { ResourceType: 'volume', Tags: tags }],
    // Autostop is an OS shutdown run by the agent: it stops the instance, or with autodown
    // (and for spot, which cannot be stopped) terminates it.
    InstanceInitiatedShutdownBehavior: spot || req.shutdownTerminates ? 'terminate' : 'stop',
    // ClientToken: set per try in runRetry.ts. The SDK's own retries of a try (answer lost)
    // reuse it, so AWS returns the first instances instead of creating more; fresh per call, so
    // a later launch of the same uid does not get back instances since terminated.
    ...(profile ? { IamInstanceProfile: { Name: profile } } : {}),
    ...(req.placement.zone ? { Placement: { AvailabilityZone: req.placement.zone } } : {}),
    ...(spot ? { InstanceMarketOptions: { MarketType: 'spot', SpotOptions: { SpotInstanceType: 'one-time', InstanceInterruptionBehavior: 'terminate' } } } : {}),
  };
  const out = await runInstances(ctx.ec2, input, ctx.opts.iamBackoffMs ?? 2000, ctx.opts.log);
  const created = (out.Instances ?? []).sort((a, b) => (a.AmiLaunchIndex ?? 0) - (b.AmiLaunchIndex ?? 0)).map((i) => i.InstanceId!);
  if (created.length && !live.some((i) => tagsOf(i)[TAG_HEAD] === 'true')) await tagHead(ctx, created[0]);
  return { created, resumed: stopped };
}

/** Nodes are created in one call with equal tags; the head is marked after. Best effort: clusterInfo falls back to the oldest. */
async function tagHead(ctx: LaunchContext, id: string): Promise<void> {
  try {
    await ctx.ec2.send(new CreateTagsCommand({ Resources: [id], Tags: [{ Key: TAG_HEAD, Value: 'true' }] }));
  } catch (e) {
    ctx.opts.log?.(`aws: could not tag head ${id}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
