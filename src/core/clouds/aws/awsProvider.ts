import { StopInstancesCommand, StartInstancesCommand, TerminateInstancesCommand, type Instance } from '@aws-sdk/client-ec2';
import {
  ProviderError, type ClusterInfo, type ClusterRef, type InstanceInfo, type Provider, type RunRequest, type RunResult,
  type TaggedListing, type TerminateAnswer, type BucketAccess,
} from '../provider';
import type { BucketGrant, IdentityRelease, ReleaseOptions } from '../clusterIdentity';
import { terminateUnlisted } from './terminateIds';
import { AwsIdentity } from './identity';
import type { PortRange } from '../../task';
import { defaultCatalogDir, type InstanceType } from '../../catalog';
import { Ec2Clients } from './clients';
import { awsErrorCode, ec2Call } from './errors';
import { ensureKeyPair, ensureLocalKey, defaultKeyDir, type LocalKey } from './keys';
import { ensureGroup, groupsOf, openGroupPorts } from './securityGroup';
import { awsCatalog } from './catalogFetch';
import { fetchSpotPrices } from './spotPrices';
import { launch } from './launch';
import { CleanupWatchers } from './cleanupWatchers';
import { deleteBucketProfile, ensureBucketProfile } from './bucketRole';
import { grantBucketsToRole, planRoleGrant } from './bucketGrant';
import { boundedBucketPolicy, s3Access } from './bucketPolicy';
import { controllerPolicy } from './controllerPolicy';
import { CONTROLLER_NODE_ENV, boundaryArn, ensureJobBoundary, existingJobBoundary } from './jobBoundary';
import { deleteStrayBucketIdentity, releaseBucketIdentity } from './identityRelease';
import { listAccount } from './listing';
import { infoOf, pickHead } from './status';
import { instancesOfUid } from './uidMatch';
import { ZoneTable, enabledRegions } from './zones';
import { waitUntil } from '../waitInstances';
import type { AwsProviderOptions } from './options';

const state = (i: Instance) => i.State?.Name ?? 'pending';

/** AWS EC2 behind the Provider interface (SkyPilot's sky/provision/aws/instance.py, in TypeScript). */
export class AwsProvider implements Provider {
  readonly cloud = 'aws';
  /** Its instance profile's role: controllerPolicy.ts. */
  readonly controllerIdentity = true;
  private readonly clients: Ec2Clients;
  private readonly account: AwsIdentity;
  private readonly zones: ZoneTable;
  private key?: LocalKey;
  private readonly keyPairs = new Map<string, Promise<string>>();
  private readonly catalogs = new Map<string, Promise<InstanceType[]>>();
  private readonly watchers: CleanupWatchers;

  constructor(private readonly opts: AwsProviderOptions = {}) {
    this.clients = new Ec2Clients(opts);
    this.account = new AwsIdentity(opts, this.clients);
    this.zones = new ZoneTable(opts.zones);
    this.watchers = new CleanupWatchers({
      pollMs: opts.cleanupPollMs ?? 5000, timeoutMs: opts.cleanupTimeoutMs ?? 15 * 60_000, log: (m) => opts.log?.(m),
      alsoDelete: (uid, deleted) => deleteBucketProfile(this.clients.iam(), uid, (m) => opts.log?.(m), deleted),
    });
  }

  zonesOf(region: string): string[] {
    return this.zones.zonesOf(region);
  }

  /** Zones the account really has (replaces the built-in table; check and launch call it). */
  learnZones(region: string, zones: string[]): void {
    this.zones.learn(region, zones);
  }

  /** The account id of the current credentials (STS GetCallerIdentity). */
  identity(): Promise<string> {
    return this.account.current();
  }

  async runInstances(req: RunRequest): Promise<RunResult> {
    await this.account.check(req.account);
    // A bucket policy IAM would refuse ends the launch before its group, key or role is made.
    const own = req.placement.jobsController ? controllerPolicy(req.uid, boundaryArn(await this.account.current())).length : 0;
    boundedBucketPolicy(s3Access(req.placement.bucketAccess), own);
    const region = await this.regionOf(req.placement.region ?? req.region);
    const ec2 = this.clients.get(region);
    this.watchers.launching(req.uid);
    await this.watchers.current(req.uid); // a clean-up mid-delete must finish before we reuse the group
    const existing = await instancesOfUid(ec2, req.uid);
    return launch({
      ec2, region, opts: this.opts,
      catalog: () => this.catalog(region),
      keyPair: () => this.keyPairIn(region),
      group: () => ensureGroup(ec2, req.clusterName, req.uid, req.tags),
      profile: () => ensureBucketProfile(this.clients.iam(), req.uid, req.tags, req.placement.bucketAccess, !!req.placement.jobsController, async () => this.jobBoundary(await this.account.current())),
    }, req, existing);
  }

  async queryInstances(ref: ClusterRef): Promise<InstanceInfo[]> {
    await this.account.check(ref.account);
    const region = await this.regionOf(ref.region);
    return (await instancesOfUid(this.clients.get(region), ref.uid)).map((i) => infoOf(i, region));
  }

  async stopInstances(ref: ClusterRef): Promise<void> {
    const { region, list } = await this.instancesOf(ref);
    const ids = list.filter((i) => ['pending', 'running'].includes(state(i))).map((i) => i.InstanceId!);
    if (ids.length) await ec2Call('StopInstances', () => this.clients.get(region).send(new StopInstancesCommand({ InstanceIds: ids })));
  }

  async startInstances(ref: ClusterRef): Promise<void> {
    const { region, list } = await this.instancesOf(ref);
    const ids = list.filter((i) => state(i) === 'stopped').map((i) => i.InstanceId!);
    if (ids.length) await ec2Call('StartInstances', () => this.clients.get(region).send(new StartInstancesCommand({ InstanceIds: ids })));
  }

  /**
   * Asks EC2 to terminate; claims nothing of listed ones (the core proves it by querying) and
   * ends named unlisted ids by id, reporting EC2's answer (terminateIds.ts). The cluster's
   * security group is deleted in the background once every instance is really terminated.
   */
  async terminateInstances(ref: ClusterRef, ids?: string[]): Promise<TerminateAnswer> {
    const { region, list } = await this.instancesOf(ref);
    const unlisted = (ids ?? []).filter((id) => !list.some((i) => i.InstanceId === id));
    const ending = unlisted.length ? await terminateUnlisted(this.clients.get(region), ref.uid, unlisted) : [];
    const targets = list.filter((i) => state(i) !== 'terminated' && (!ids || ids.includes(i.InstanceId!))).map((i) => i.InstanceId!);
    if (targets.length) {
      await ec2Call('TerminateInstances', async () => {
        try {
          await this.clients.get(region).send(new TerminateInstancesCommand({ InstanceIds: targets }));
        } catch (e) {
          // Already gone between our look and the call: that is what we asked for.
          if (awsErrorCode(e) !== 'InvalidInstanceID.NotFound') throw e;
        }
      });
    }
    // Also after a sweep's single-instance terminate: the watcher deletes the group only once
    // every instance of the uid is terminated, so a partial terminate just leaves it be.
    void this.watchers.schedule(this.clients.get(region), ref.uid);
    return { ending };
  }

  waitInstances(ref: ClusterRef, goal: 'running' | 'stopped' | 'terminated', timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return waitUntil(() => this.queryInstances(ref), goal, `instances of ${ref.uid}`, timeoutMs, this.opts.pollMs ?? 3000, signal);
  }

  /** The region calls without one go to (so a caller can record it before launching). */
  defaultRegion(): Promise<string> {
    return this.clients.defaultRegion();
  }

  /**
   * An EC2 VM's SDK finds the instance profile's credentials but no region: job tasks naming none
   * go to the VM's own. The node's CLI is also told it runs on a controller VM, so it uses the
   * job-role boundary this machine made and never tries to write it (jobBoundary.ts).
   */
  controllerNodeEnv(ref: ClusterRef): Record<string, string> {
    return { ...(ref.region ? { AWS_REGION: ref.region } : {}), [CONTROLLER_NODE_ENV]: '1' };
  }

  /** The job-role permissions boundary's ARN: made or set back here, only checked on a controller VM. */
  private jobBoundary(account: string): Promise<string> {
    const onController = !!(this.opts.env ?? process.env)[CONTROLLER_NODE_ENV];
    return onController ? existingJobBoundary(this.clients.iam(), account) : ensureJobBoundary(this.clients.iam(), account);
  }

  async clusterInfo(ref: ClusterRef): Promise<ClusterInfo> {
    const { region, list } = await this.instancesOf(ref);
    const running = list.filter((i) => state(i) === 'running').map((i, index) => ({ info: infoOf(i, region), index: i.AmiLaunchIndex ?? index }));
    const head = pickHead(running);
    if (!head) throw new ProviderError('transient', `no running instance of ${ref.uid} yet`);
    const address = (i: InstanceInfo) => (this.opts.usePrivateIps ? i.privateIp : i.publicIp ?? i.privateIp) ?? '';
    if (!address(head)) throw new ProviderError('transient', `head ${head.id} has no IP address yet`);
    return {
      head: { id: head.id, address: address(head) },
      workers: running.filter((x) => x.info.id !== head.id).map((x) => ({ id: x.info.id, address: address(x.info) })),
      sshUser: 'ubuntu', sshKeyPath: this.localKey().privatePath, sshPort: 22,
    };
  }

  /**
   * Every live Skydeck-tagged instance of the account, in every region enabled for it, listed
   * in parallel, and its Skydeck bucket roles. A region that fails is named as unlisted (its strays are unknown); another
   * account than the credentials' own cannot be listed at all.
   */
  async listTagged(account?: string): Promise<TaggedListing> {
    await this.account.check(account);
    const current = await this.account.current();
    const regions = this.opts.regions?.length ? this.opts.regions : await enabledRegions(this.clients.get(await this.regionOf(undefined)));
    return { account: current, ...(await listAccount(this.clients, regions, this.opts.sweepConcurrency ?? 8)) };
  }

  async openPorts(ref: ClusterRef, ports: PortRange[]): Promise<void> {
    await this.account.check(ref.account);
    const region = await this.regionOf(ref.region);
    const ec2 = this.clients.get(region);
    const [group] = await groupsOf(ec2, ref.uid);
    if (!group) throw new ProviderError('config', `cluster ${ref.uid} has no security group in ${region}`);
    await openGroupPorts(ec2, group, ports);
  }

  /** Current spot prices of `types` in `region`, cached for the price book (cost/spotCache.ts). */
  spotPrices(region: string, types: string[]): Promise<unknown> {
    return fetchSpotPrices(this.clients.get(region), region, types, this.opts.catalogDir ?? defaultCatalogDir());
  }

  /** The region's instance-type catalog (cached on disk with its fetch time). */
  catalog(region: string): Promise<InstanceType[]> {
    let c = this.catalogs.get(region);
    if (!c) {
      c = awsCatalog(this.clients.get(region), region, this.opts.catalogDir ?? defaultCatalogDir(), this.opts.log);
      this.catalogs.set(region, c);
    }
    return c;
  }

  async grantBuckets(ref: ClusterRef, access: BucketAccess[]): Promise<BucketGrant> {
    await this.account.check(ref.account);
    const account = await this.account.current();
    return grantBucketsToRole(this.clients.iam(), ref.uid, access, !!ref.jobsController, boundaryArn(account), () => this.jobBoundary(account));
  }

  async checkBuckets(ref: ClusterRef, access: BucketAccess[]): Promise<void> {
    await this.account.check(ref.account);
    await planRoleGrant(this.clients.iam(), ref.uid, access, !!ref.jobsController, boundaryArn(await this.account.current()));
  }

  /** Bucket role and profile: widened (bucketGrant.ts), deleted with proof (identityRelease.ts). */
  async releaseIdentities(ref: ClusterRef, opts: ReleaseOptions): Promise<IdentityRelease> {
    await this.account.check(ref.account);
    const ec2 = this.clients.get(await this.regionOf(ref.region));
    return releaseBucketIdentity(this.clients.iam(), ec2, this.watchers, ref.uid, opts);
  }

  async deleteIdentities(ref: ClusterRef): Promise<IdentityRelease> {
    await this.account.check(ref.account);
    return deleteStrayBucketIdentity(this.clients.iam(), ref.uid, (m) => this.opts.log?.(m));
  }

  /** Resolves when background security-group clean-ups have finished (tests, shutdown). */
  settled(): Promise<void> {
    return this.watchers.settled();
  }

  dispose(): void {
    this.clients.destroy();
  }

  private localKey(): LocalKey {
    this.key ??= ensureLocalKey(this.opts.keyDir ?? defaultKeyDir());
    return this.key;
  }

  private keyPairIn(region: string): Promise<string> {
    let k = this.keyPairs.get(region);
    if (!k) {
      k = ensureKeyPair(this.clients.get(region), this.localKey());
      k.catch(() => this.keyPairs.delete(region)); // a failed import is tried again next launch
      this.keyPairs.set(region, k);
    }
    return k;
  }

  private async instancesOf(ref: ClusterRef): Promise<{ region: string; list: Instance[] }> {
    await this.account.check(ref.account);
    const region = await this.regionOf(ref.region);
    return { region, list: await instancesOfUid(this.clients.get(region), ref.uid) };
  }

  private regionOf(region: string | undefined): Promise<string> {
    return region ? Promise.resolve(region) : this.clients.defaultRegion();
  }
}
