import { randomUUID } from 'node:crypto';
import {
  ProviderError, TAG_UID, type ClusterInfo, type ClusterRef, type InstanceInfo, type Provider, type RunRequest, type RunResult,
  type TaggedListing, type UnlistedPart, type BucketAccess,
} from '../provider';
import { waitUntil } from '../waitInstances';
import type { PortRange } from '../../task';
import { defaultCatalogDir, type InstanceType } from '../../catalog';
import { AutodownIdentities } from './autodownIdentity';
import { deleteBucketIdentity, ensureBucketIdentity, gcsAccess, listBucketIdentities, undoBucketIdentity } from './bucketIdentity';
import { grantBucketsToAccount } from './bucketGrant';
import { existingJobsAccount, jobsAccountEmail, JOBS_ACCOUNT_ENV } from './jobsAccount';
import type { BucketGrant, IdentityRelease, ReleaseOptions } from '../clusterIdentity';
import { gcpCatalog } from './catalogFetch';
import { GcpClients } from './clients';
import { gcpCall, isNotFound, toGcpError } from './errors';
import { deleteFirewall, ensureFirewall, getRule, jobsFirewallName, netTagOf } from './firewall';
import { deleteJobsFirewall, ensureJobsFirewall, listJobsFirewalls, servesJobsAccount } from './jobsFirewall';
import { ANY_VALUE, labelFilter } from './labels';
import { launch, wakeOne } from './launch';
import { aggregatedInstances } from './listing';
import { ensureLocalKey, defaultKeyDir, type LocalKey } from '../localKey';
import type { WaitOptions } from './operations';
import { GCP_SSH_USER, JOB_CLUSTERS_ENV, JOBS_RULE_ENV, type GcpProviderOptions } from './options';
import { infoOf, LABEL_HEAD, statusOf, type GcpInstance } from './status';
import { GcpZoneTable, lastSegment, regionOfZone } from './zones';

/** GCP Compute Engine behind the Provider interface (SkyPilot's sky/provision/gcp/instance.py, in TypeScript). */
export class GcpProvider implements Provider {
  readonly cloud = 'gcp';
  /**
   * A controller cluster's VM runs as its own account bound to the controller's roles
   * (controllerRole.ts). On the VM, google-auth-library's ADC finds the account's token and the
   * project id on the metadata server, and a task naming no region goes to the provider's
   * default (us-central1) there as here; controllerNodeEnv says it is a controller and names the
   * account job clusters run as.
   */
  readonly controllerIdentity = true;
  /**
   * Set on a controller VM only (JOBS_ACCOUNT_ENV): the controller's jobs account
   * (jobsAccount.ts), which every job cluster runs as (the jobs rule targets it; with GCS mounts
   * it holds the buckets) instead of an account of its own (the VM may neither create accounts
   * nor attach any other).
   */
  private readonly jobsAccount?: string;
  /** Set on a controller VM only (JOBS_RULE_ENV): the one firewall rule its job clusters share (jobsFirewall.ts). */
  private readonly jobsRule?: string;
  /** Instances this provider creates get the job-cluster prefix (options.ts jobClusters). */
  private readonly jobClusters: boolean;
  readonly clients: GcpClients;
  private readonly zones: GcpZoneTable;
  private key?: LocalKey;
  private readonly catalogs = new Map<string, Promise<InstanceType[]>>();
  private readonly autodown: AutodownIdentities;

  constructor(private readonly opts: GcpProviderOptions = {}) {
    this.clients = new GcpClients(opts);
    this.zones = new GcpZoneTable(opts.zones);
    this.autodown = new AutodownIdentities({ c: this.clients, backoffMs: opts.pollMs ?? 2000, log: opts.log });
    const env = opts.env ?? process.env;
    this.jobsAccount = opts.jobsAccount ?? (env[JOBS_ACCOUNT_ENV] || undefined);
    this.jobClusters = opts.jobClusters ?? env[JOB_CLUSTERS_ENV] === '1';
    this.jobsRule = opts.jobsRule ?? (env[JOBS_RULE_ENV] || undefined);
  }

  /**
   * The controller VM's CLI names the job clusters it launches with the prefix its conditional
   * binding allows (controllerRole.ts; without it every job launch there is refused by IAM), and
   * launches them all as the controller's jobs account (jobsAccount.ts), which the one firewall
   * rule this machine made for them targets (jobsFirewall.ts); it checks that rule by name.
   */
  controllerNodeEnv(ref: ClusterRef): Record<string, string> {
    const project = ref.account ?? this.opts.project;
    return {
      [JOB_CLUSTERS_ENV]: '1', [JOBS_RULE_ENV]: jobsFirewallName(ref.uid),
      ...(project ? { [JOBS_ACCOUNT_ENV]: jobsAccountEmail(ref.uid, project) } : {}),
    };
  }

  zonesOf(region: string): string[] {
    return this.zones.zonesOf(region);
  }

  /** Zones the project really has (checkGcp reads them); replaces the built-in table. */
  learnZones(region: string, zones: string[]): void {
    this.zones.learn(region, zones);
  }

  /** The configured project (option, environment, gcloud config, ADC): where new clusters go. */
  identity(): Promise<string> {
    return this.clients.projectId();
  }

  async runInstances(req: RunRequest): Promise<RunResult> {
    // On a controller VM: a job cluster's nodes run as the jobs account (its rule's target), with
    // the storage scope only when the job mounts GCS (launch.ts nodeAccount).
    const onController = this.onControllerVm && !req.placement.jobsController;
    if (onController && req.autostop?.down) {
      // Its head would need an account with the autodown role, which the VM may not attach.
      throw new ProviderError('config', `GCP: job cluster ${req.clusterName} cannot autodown: the managed-jobs controller VM ends its job clusters itself and may attach no autodown account`,
        'drop autostop down from the job\'s task (the controller tears the cluster down when the job ends)');
    }
    if (onController && req.ports?.length) throw this.portsRefused(req.clusterName);
    const w = await this.waitOpts(req.account);
    const zone = req.placement.zone ?? req.zone ?? this.zonesOf(req.placement.region ?? req.region ?? this.defaultRegion())[0];
    if (!zone) throw new ProviderError('config', `no zone known for GCP region ${req.placement.region ?? req.region}`, 'name a zone in the task (infra: gcp/REGION/ZONE)');
    const network = this.opts.network ?? 'default';
    // SSH must be open before the loop tries to connect; openPorts widens the rule later. A job
    // cluster of a controller VM carries no network tag (the VM may set none): the controller's
    // jobs rule, which this machine made, reaches it by its account.
    if (onController) await this.controllerJobsRule(w.project);
    else await ensureFirewall(this.clients, w, network, req.uid, []);
    const netTag = onController ? undefined : netTagOf(req.uid);
    const existing = await this.list(w.project, req.uid);
    const iam = this.iamOpts(w.project);
    let madeRule = false;
    try {
      const bucketAccount = onController ? this.controllerJobsAccount() : await ensureBucketIdentity(iam, req);
      // With the controller's identity: the one rule its job clusters will share (the VM may write none).
      if (req.placement.jobsController) {
        const owner = { uid: req.uid, clusterName: req.clusterName, workspaceId: req.workspaceId, jobsAccount: jobsAccountEmail(req.uid, w.project) };
        await ensureJobsFirewall(this.clients, w, network, owner, () => (madeRule = true));
      }
      return await launch({
        c: this.clients, wait: w, zone, network, publicKey: this.localKey().publicKey, netTag,
        catalog: () => this.catalog(regionOfZone(zone), zone),
        autodownAccount: () => this.autodown.account(w.project), backoffMs: w.pollMs, log: this.opts.log, bucketAccount, jobClusters: this.jobClusters,
      }, req, existing);
    } catch (e) {
      if (!onController) await undoBucketIdentity(iam, req, async () => (await this.list(w.project, req.uid)).length > 0);
      if (madeRule) await this.undoJobsRule(w, req.uid);
      throw e;
    }
  }

  /**
   * After a failed controller launch whose call made the jobs rule: it goes unless an instance of
   * the uid is left (an earlier launch's, which the rule serves). A rule this call did not make
   * (there before, or made meanwhile by another launch of the uid: a 409) is not this call's to
   * delete. Logged, not thrown: what is left, the sweep lists (listTagged) once no row owns the uid.
   */
  private async undoJobsRule(w: WaitOptions, uid: string): Promise<void> {
    const name = jobsFirewallName(uid);
    try {
      if ((await this.list(w.project, uid)).length) return;
      for (const g of await deleteJobsFirewall(this.clients, w, uid)) this.opts.log?.(`GCP: deleted ${g.kind} ${g.name} after the failed launch (proof: ${g.proof})`);
    } catch (e) {
      this.opts.log?.(`GCP: the firewall rule ${name} is left after the failed launch (its down removes it; with no cluster row "skydeck leaks" lists it and --delete-identity ${name} deletes it): ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** This process runs on a managed-jobs controller VM (controllerNodeEnv set either variable). */
  private get onControllerVm(): boolean {
    return this.jobClusters || !!this.jobsAccount;
  }

  /**
   * The controller's jobs rule must exist and target its jobs account: the VM may make or change
   * no rule, and a job cluster it does not reach would never answer SSH. A controller an older
   * Skydeck launched (no rule, or one targeting a network tag) is refused, naming the fix.
   */
  private async controllerJobsRule(project: string): Promise<void> {
    const fix = 'stop the managed-jobs controller cluster once its jobs are done (skydeck stop NAME); the next jobs launch starts it and makes the rule';
    if (!this.jobsRule) throw new ProviderError('config', `GCP: this managed-jobs controller VM was not told its job clusters' firewall rule (${JOBS_RULE_ENV}; it was launched by an older Skydeck)`, fix);
    const account = this.controllerJobsAccount();
    const rule = await getRule(this.clients, project, this.jobsRule);
    if (!rule) {
      throw new ProviderError('config', `GCP: the firewall rule ${this.jobsRule} of this managed-jobs controller's job clusters is missing (it was launched by an older Skydeck, or the rule was deleted): a job cluster would not answer SSH`, fix);
    }
    if (!servesJobsAccount(rule, account)) {
      const targets = rule.targetTags?.length ? `network tag(s) ${rule.targetTags.join(', ')}` : `${(rule.targetServiceAccounts ?? []).join(', ') || 'every instance'}${rule.disabled ? ' (disabled)' : ''}`;
      throw new ProviderError('config', `GCP: the firewall rule ${this.jobsRule} of this managed-jobs controller's job clusters targets ${targets}, not its jobs account ${account} (an older Skydeck made it, or it was changed): a job cluster would not answer SSH`, fix);
    }
  }

  /** A job cluster of a controller VM reaches SSH only: the jobs rule opens nothing else, and the VM may write no rule. */
  private portsRefused(clusterName: string): ProviderError {
    return new ProviderError('config', `GCP: job cluster ${clusterName} cannot open ports: a managed-jobs controller VM may not change firewall rules (IAM cannot narrow them to its own), so its job clusters get SSH only`,
      'drop resources.ports from the managed job\'s task, or run it as a normal cluster (skydeck launch) from this machine');
  }

  /** The jobs account every job cluster runs as; the env variables are set together, so missing is a broken setup. */
  private controllerJobsAccount(): string {
    if (this.jobsAccount) return this.jobsAccount;
    throw new ProviderError('config', `GCP: this managed-jobs controller VM was not told its jobs account (${JOBS_ACCOUNT_ENV}), which its job clusters run as (the jobs rule's SSH target, and their GCS buckets)`,
      'down the controller cluster once its jobs are done; the next jobs launch starts it with the account set');
  }

  async queryInstances(ref: ClusterRef): Promise<InstanceInfo[]> {
    const w = await this.waitOpts(ref.account);
    return (await this.list(w.project, ref.uid)).map(infoOf);
  }

  /**
   * Asks every instance not already stopping or stopped to stop (one in a status Skydeck cannot
   * map is asked too: GCE decides); waitInstances watches them reach TERMINATED/STOPPED.
   */
  async stopInstances(ref: ClusterRef): Promise<void> {
    const w = await this.waitOpts(ref.account);
    const list = (await this.list(w.project, ref.uid)).filter((i) => ['pending', 'running', 'unknown'].includes(statusOf(i.status)));
    await Promise.all(list.map((i) => gcpCall('instances.stop', () => this.clients.post(`${this.path(w, i)}/stop`, undefined, { requestId: randomUUID() }))));
  }

  /** Starts stopped instances (resumes suspended ones) and waits for each operation, which fails on a full zone. */
  async startInstances(ref: ClusterRef): Promise<void> {
    const w = await this.waitOpts(ref.account);
    await Promise.all((await this.list(w.project, ref.uid)).map((i) => wakeOne(this.clients, w, i)));
  }

  /**
   * Asks GCP to delete; claims nothing (the core proves it by querying: a deleted VM vanishes
   * from listings). Deleting the whole cluster also deletes its firewall rule (not on a controller
   * VM: its job clusters have none, and it may delete none).
   */
  async terminateInstances(ref: ClusterRef, ids?: string[]): Promise<void> {
    const w = await this.waitOpts(ref.account);
    const all = await this.list(w.project, ref.uid);
    const list = all.filter((i) => !ids || ids.includes(i.name!));
    await Promise.all(list.map((i) => gcpCall('instances.delete', async () => {
      try {
        await this.clients.delete(this.path(w, i), { requestId: randomUUID() });
      } catch (e) {
        if (!isNotFound(e)) throw e; // gone between our look and the call: what we asked for
      }
    })));
    // The last instances of the uid (the sweep ends a leaked cluster one id at a time): its rule
    // goes too, and its bucket identity (bindings first, then the account, proved gone).
    if (list.length === all.length) {
      // A controller VM's job clusters share its jobs rule, which goes at the controller's down.
      if (!this.onControllerVm) await deleteFirewall(this.clients, w, ref.uid);
      // A controller's goes at its down instead (releaseIdentities), where each step is proved and said.
      // A job cluster launched by a controller VM ran as the controller's jobs account, which stays.
      if (gcsAccess(ref.bucketAccess).length && !ref.jobsController && !this.onControllerVm) await deleteBucketIdentity(this.iamOpts(w.project), ref.uid, ref.bucketAccess);
    }
  }

  waitInstances(ref: ClusterRef, goal: 'running' | 'stopped' | 'terminated', timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return waitUntil(() => this.queryInstances(ref), goal, `instances of ${ref.uid}`, timeoutMs, this.opts.pollMs ?? 3000, signal);
  }

  async clusterInfo(ref: ClusterRef): Promise<ClusterInfo> {
    const w = await this.waitOpts(ref.account);
    const running = (await this.list(w.project, ref.uid)).filter((i) => i.status === 'RUNNING');
    const head = running.find((i) => i.labels?.[LABEL_HEAD] === 'true')
      ?? [...running].sort((a, b) => (a.creationTimestamp ?? '').localeCompare(b.creationTimestamp ?? '') || a.name!.localeCompare(b.name!))[0];
    if (!head) throw new ProviderError('transient', `no running instance of ${ref.uid} yet`);
    const address = (i: GcpInstance) => {
      const info = infoOf(i);
      return (this.opts.usePrivateIps ? info.privateIp : info.publicIp ?? info.privateIp) ?? '';
    };
    if (!address(head)) throw new ProviderError('transient', `head ${head.name} has no IP address yet`);
    return {
      head: { id: head.name!, address: address(head) },
      workers: running.filter((i) => i !== head).map((i) => ({ id: i.name!, address: address(i) })),
      sshUser: GCP_SSH_USER, sshKeyPath: this.localKey().privatePath, sshPort: 22,
    };
  }

  /**
   * Every Skydeck-labelled instance of the project (default: the configured one), any status
   * but deleted. The aggregated listing covers every zone in one call; a zone GCP reports as
   * unreachable is named as unlisted.
   */
  async listTagged(account?: string): Promise<TaggedListing> {
    const w = await this.waitOpts(account);
    // Each page of an aggregated list names every zone again (with a warning when it has none there).
    const unlisted = new Map<string, UnlistedPart>();
    const listed = new Set<string>();
    const instances = await aggregatedInstances(this.clients, w.project, labelFilter(TAG_UID, ANY_VALUE), (scope, message) => {
      unlisted.set(scope, { region: lastSegment(scope), kind: 'transient', message: `instances of ${scope} could not be listed: ${message}` });
    }, (scope) => listed.add(lastSegment(scope)));
    // A zone unreachable on any page is unknown, even if another page named it.
    for (const scope of unlisted.keys()) listed.delete(lastSegment(scope));
    const accounts = await listBucketIdentities({ c: this.clients, project: w.project }).catch((e: unknown) => {
      unlisted.set('IAM', { region: 'IAM', kind: toGcpError(e, 'serviceAccounts.list').kind, message: `service accounts could not be listed: ${toGcpError(e).message}` });
    });
    // Controllers' jobs rules (a failed launch's leftover has no row): not on a controller VM,
    // which makes and deletes none (and may not list rules).
    const rules = this.onControllerVm ? [] : await listJobsFirewalls(this.clients, w.project).catch((e: unknown) => {
      unlisted.set('firewalls', { region: 'firewalls', kind: toGcpError(e).kind, message: `firewall rules could not be listed: ${toGcpError(e).message}` });
    });
    const identities = accounts || rules ? [...(accounts ?? []), ...(rules ?? [])] : undefined;
    return {
      account: w.project, instances: instances.map(infoOf), listed: [...listed], unlisted: [...unlisted.values()], ...(identities ? { identities } : {}),
    };
  }

  async openPorts(ref: ClusterRef, ports: PortRange[]): Promise<void> {
    if (this.onControllerVm && ports.length) throw this.portsRefused(ref.uid);
    await ensureFirewall(this.clients, await this.waitOpts(ref.account), this.opts.network ?? 'default', ref.uid, ports);
  }

  /**
   * The region's machine-type catalog (cached on disk with its fetch time), listed from the
   * region's first zone; `zone` serves a region the zone table does not know.
   */
  catalog(region: string, zone?: string): Promise<InstanceType[]> {
    let c = this.catalogs.get(region);
    if (!c) {
      c = gcpCatalog(this.clients, region, this.zonesOf(region)[0] ?? zone ?? `${region}-a`, this.opts.catalogDir ?? defaultCatalogDir(),
        { log: this.opts.log });
      this.catalogs.set(region, c);
    }
    return c;
  }

  dispose(): Promise<void> {
    return this.clients.close();
  }

  /**
   * The uid's instances in every zone: stragglers of a failed zone count too. Labels hold a
   * mapped uid (labels.ts), so each instance is confirmed by its exact tag before anyone acts on it.
   */
  private async list(project: string, uid: string): Promise<GcpInstance[]> {
    return (await aggregatedInstances(this.clients, project, labelFilter(TAG_UID, uid))).filter((i) => infoOf(i).tags?.[TAG_UID] === uid);
  }

  /** The instance's URL path (names and zones as GCE listed them: [a-z0-9-], nothing to escape). */
  private path(w: WaitOptions, i: GcpInstance): string {
    return `projects/${w.project}/zones/${lastSegment(i.zone)}/instances/${i.name}`;
  }

  /** New GCS buckets for a reused cluster's account (bucketGrant.ts); `ref.bucketAccess` is what it was given. */
  async grantBuckets(ref: ClusterRef, access: BucketAccess[]): Promise<BucketGrant> {
    // On a controller VM (a job cluster's launch resumed after a restart): its nodes run as the
    // jobs account, granted the job's buckets from the submitting machine; the VM may grant nothing.
    if (this.onControllerVm && !ref.jobsController) return { identity: `service account ${this.controllerJobsAccount()}`, changed: false };
    const w = await this.waitOpts(ref.account);
    return grantBucketsToAccount(this.iamOpts(w.project), ref, access, ref.bucketAccess ?? []);
  }

  /** A managed-jobs controller without a jobs account (launched by an older Skydeck) is refused before anything is recorded. */
  async checkBuckets(ref: ClusterRef, access: BucketAccess[]): Promise<void> {
    if (ref.jobsController && gcsAccess(access).length) await existingJobsAccount(this.iamOpts((await this.waitOpts(ref.account)).project), ref.uid);
  }

  /**
   * A stray cluster's account (no row, no instance: the caller checked). Its bindings on
   * buckets are not known without the row; GCP shows them as deleted members that grant nothing.
   */
  async deleteIdentities(ref: ClusterRef): Promise<IdentityRelease> {
    const w = await this.waitOpts(ref.account);
    // A controller's jobs rule first (made with its identity at launch), then the accounts.
    const rule = await deleteJobsFirewall(this.clients, w, ref.uid);
    return { gone: [...rule, ...await deleteBucketIdentity(this.iamOpts(w.project), ref.uid, ref.bucketAccess)], left: [] };
  }

  /**
   * At a down proved ending, a managed-jobs controller's jobs firewall rule (deleted, GET → 404)
   * and account: its project binding and bucket
   * bindings removed, then the account deleted, each proved (a bucket cluster's went with its
   * last instance, in terminateInstances). GCP lets an account go while its VM is deleted.
   */
  async releaseIdentities(ref: ClusterRef, _opts: ReleaseOptions): Promise<IdentityRelease> {
    if (!ref.jobsController) return { gone: [], left: [] };
    return this.deleteIdentities(ref);
  }

  private iamOpts(project: string) {
    return { c: this.clients, project, backoffMs: this.opts.pollMs ?? 2000, log: this.opts.log };
  }

  /** Calls go to the cluster's recorded project; only new clusters and sweeps default to the configured one. */
  private async waitOpts(project?: string): Promise<WaitOptions> {
    return { project: project ?? await this.clients.projectId(), pollMs: this.opts.pollMs ?? 2000, timeoutMs: this.opts.operationTimeoutMs ?? 10 * 60_000 };
  }

  private defaultRegion(): string {
    return this.opts.region ?? 'us-central1';
  }

  private localKey(): LocalKey {
    this.key ??= ensureLocalKey(this.opts.keyDir ?? defaultKeyDir());
    return this.key;
  }
}

