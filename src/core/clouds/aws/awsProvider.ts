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
import { CONTROLLER_NODE_ENV, ensureJobBoundary, existingJobBoundary } from './jobBoundary';
import { CONTROLLER_UID_ENV, controllerBoundaryArn, ensureControllerBoundary } from './controllerBoundary';
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
      alsoDelete: async (uid, deleted) => deleteBucketProfile(this.clients.iam(), uid, (m) => opts.log?.(m), deleted, controllerBoundaryArn(await this.account.current(), uid)),
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
    const own = req.placement.jobsController ? controllerPolicy(req.uid, controllerBoundaryArn(await this.account.current(), req.uid)).length : 0;
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
      profile: () => ensureBucketProfile(this.clients.iam(), req.uid, req.tags, req.placement.bucketAccess, !!req.placement.jobsController, async () => {
        const account = await this.account.current();
        if (!req.placement.jobsController) return this.jobBoundary(account);
        // A controller's own boundary, with the buckets granted to it so far (a relaunch keeps them).
        const arn = controllerBoundaryArn(account, req.uid);
        await ensureControllerBoundary(this.clients.iam(), arn, req.uid, req.tags, s3Access(req.placement.bucketAccess));
        return arn;
      }),
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
   * go to the VM's own. The node's CLI is also told it runs on a controller VM, and which one,
   * so it uses that controller's job-role boundary, which this machine made, and never tries to
   * write it (controllerBoundary.ts).
   */
  controllerNodeEnv(ref: ClusterRef): Record<string, string> {
    return { ...(ref.region ? { AWS_REGION: ref.region } : {}), [CONTROLLER_NODE_ENV]: '1', [CONTROLLER_UID_ENV]: ref.uid };
  }

  /**
   * The boundary a cluster role made here carries: the account's shared one, made or set back
   * here; on a controller VM its controller's own, only checked (its uid comes from the
   * environment this machine set, still checked: it becomes part of an ARN).
   */
  private jobBoundary(account: string): Promise<string> {
    const env = this.opts.env ?? process.env;
    if (!env[CONTROLLER_NODE_ENV]) return ensureJobBoundary(this.clients.iam(), account);
    const uid = env[CONTROLLER_UID_ENV] ?? '';
    if (!/^[\w-]{1,64}$/.test(uid)) {
      throw new ProviderError('config', `this managed-jobs controller was not told its uid (${CONTROLLER_UID_ENV}${uid ? ` is "${uid.slice(0, 80)}"` : ' is not set'}), so it cannot name the permissions boundary its job-cluster roles must carry`,
        'it was started by an older Skydeck: down the controller once its jobs are done and submit again from your machine (the controller is launched anew)');
    }
    return existingJobBoundary(this.clients.iam(), controllerBoundaryArn(account, uid));
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
    // A controller's own boundary is widened with its role; another cluster's role carries this machine's (or on a VM its controller's).
    return grantBucketsToRole(this.clients.iam(), ref.uid, access, !!ref.jobsController, controllerBoundaryArn(account, ref.uid), () => this.jobBoundary(account));
  }

  async checkBuckets(ref: ClusterRef, access: BucketAccess[]): Promise<void> {
    await this.account.check(ref.account);
    await planRoleGrant(this.clients.iam(), ref.uid, access, !!ref.jobsController, controllerBoundaryArn(await this.account.current(), ref.uid));
  }

  /** Bucket role and profile: widened (bucketGrant.ts), deleted with proof (identityRelease.ts). */
  async releaseIdentities(ref: ClusterRef, opts: ReleaseOptions): Promise<IdentityRelease> {
    await this.account.check(ref.account);
    const ec2 = this.clients.get(await this.regionOf(ref.region));
    return releaseBucketIdentity(this.clients.iam(), ec2, this.watchers, ref.uid, opts, controllerBoundaryArn(await this.account.current(), ref.uid));
  }

  async deleteIdentities(ref: ClusterRef): Promise<IdentityRelease> {
    await this.account.check(ref.account);
    return deleteStrayBucketIdentity(this.clients.iam(), ref.uid, (m) => this.opts.log?.(m), controllerBoundaryArn(await this.account.current(), ref.uid));
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
