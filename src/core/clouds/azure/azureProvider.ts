import {
  ProviderError, type ClusterInfo, type ClusterRef, type InstanceInfo, type Provider, type RunRequest, type RunResult,
  type TaggedListing, type BucketAccess,
} from '../provider';
import { waitUntil } from '../waitInstances';
import type { PortRange } from '../../task';
import { defaultCatalogDir, type InstanceType } from '../../catalog';
import { azureCatalog } from './catalogFetch';
import { ensureLocalKey, defaultKeyDir, type LocalKey } from '../localKey';
import { AzureClients, MI_RESOURCE_ENV } from './clients';
import { azCall, isGroupGone, isNotFound } from './errors';
import { BUCKET_IDENTITY, bucketIdentityId, checkJobsIdentity, containerScopes, containersOf, ensureBucketIdentity, JOBS_IDENTITY, jobsIdentityId, MI_API } from './bucketIdentity';
import { GRANT_KIND, revokeGrants, type BucketGrant as Grant } from './bucketGrants';
import { checkNamedContainers, grantContainers } from './bucketGrant';
import type { BucketGrant, IdentityRelease, ReleaseOptions } from '../clusterIdentity';
import { listJobsGroup, listSubscription } from './sweepListing';
import { controllerUidOfJobsIdentity, groupName, isJobsGroupName, jobsGroupName, parseJobsVmId, TAG_HEAD, vmName } from './names';
import { addressesOf, ensureNetwork, openNsgPorts } from './network';
import { AZURE_SSH_USER, DEFAULT_LOCATION, JOBS_IDENTITY_ENV, type AzureProviderOptions } from './options';
import { infoOf } from './status';
import { listVms } from './listing';
import { shapeOf } from '../nodeShape';
import { createVm, pickSize } from './vm';
import { waitGroupGone } from './group';
import { holdLeavingDeletes, leftoverInfo, leftOf, partsByVm } from './leftovers';
import { terminateIn } from './terminate';
import { deleteJobsGroup, endJobsGroupVm, jobsGroupThere, proveJobsGroupGone } from './jobsGroup';

/** Azure VMs behind the Provider interface (SkyPilot's sky/provision/azure/instance.py, in TypeScript). */
export class AzureProvider implements Provider {
  readonly cloud = 'azure';
  private clientsCache?: AzureClients;
  /** Clients of other subscriptions than the configured one (clusters recorded there). */
  private readonly bySubscription = new Map<string, AzureClients>();
  private key?: LocalKey;
  private readonly catalogs = new Map<string, Promise<InstanceType[]>>();
  /** Per uid, what a whole-cluster terminate deleted or left to its group's delete (releaseIdentities proves it). */
  private readonly ended = new Map<string, { grants: Grant[]; identity: boolean; jobs?: boolean; jobsGroup?: string[] }>();
  /** A controller VM's identity holds the "Skydeck jobs controller" role on its jobs group alone: controllerRole.ts. */
  readonly controllerIdentity = true;

  /** On a controller VM: the one identity its job clusters may carry (bucketIdentity.ts). */
  private readonly jobsIdentity?: string;
  /**
   * On a controller VM: the one group its job clusters go into (names.ts jobsGroupName), the
   * only one its compute and network role reaches; from the controller's uid in its jobs
   * identity's id, which comes from the node's environment (state this machine wrote there):
   * anything but that exact form is refused at first use, never put in a URL.
   */
  private readonly jobsGroup?: string;

  constructor(private readonly opts: AzureProviderOptions = {}) {
    this.jobsIdentity = opts.jobsIdentity ?? ((opts.env ?? process.env)[JOBS_IDENTITY_ENV] || undefined);
    const ctl = this.jobsIdentity ? controllerUidOfJobsIdentity(this.jobsIdentity) : undefined;
    if (ctl) this.jobsGroup = jobsGroupName(ctl);
  }

  /** The cluster's group, and in a controller's shared jobs group the uid its resources are told apart by. */
  private placeOf(ref: { uid: string }): { group: string; shared?: string } {
    if (!this.jobsIdentity) return { group: groupName(ref.uid) };
    if (!this.jobsGroup || !isJobsGroupName(this.jobsGroup)) {
      throw new ProviderError('config', `${JSON.stringify(this.jobsIdentity)} (${JOBS_IDENTITY_ENV}) is not a Skydeck controller's jobs identity`, 'launch the managed-jobs controller again from your machine');
    }
    groupName(ref.uid); // the uid is checked as ever: it becomes a tag and part of names
    return { group: this.jobsGroup, shared: ref.uid };
  }

  /** Built on first use: a missing subscription is then a typed auth error of that call. */
  get clients(): AzureClients {
    this.clientsCache ??= new AzureClients(this.opts);
    return this.clientsCache;
  }

  /** The configured subscription (option, AZURE_SUBSCRIPTION_ID, "az account set"): where new clusters go. */
  async identity(): Promise<string> {
    return this.clients.subscriptionId;
  }

  /**
   * The clients of a cluster's recorded subscription: every call about a cluster goes there,
   * whatever subscription is configured now (a 404 from another one would read as "gone").
   */
  clientsFor(subscription?: string): AzureClients {
    if (!subscription || subscription === this.clients.subscriptionId) return this.clients;
    let c = this.bySubscription.get(subscription);
    if (!c) {
      c = new AzureClients(this.opts, subscription);
      this.bySubscription.set(subscription, c);
    }
    return c;
  }

  async runInstances(req: RunRequest): Promise<RunResult> {
    const c = this.clientsFor(req.account);
    const { group, shared } = this.placeOf(req);
    const location = req.placement.region ?? req.region ?? this.opts.region ?? DEFAULT_LOCATION;
    if (shared && req.placement.jobsController) {
      // Its identity's roles would be role assignments, which a controller VM may not make (controllerRole.ts).
      throw new ProviderError('config', `${req.clusterName}: a managed-jobs controller on Azure cannot launch another controller`, 'launch controllers from your machine');
    }
    if (shared && req.autostop) {
      // Its head's identity would need deallocate on the shared group: every job cluster's VMs.
      throw new ProviderError('config', `${req.clusterName}: a job cluster of a managed-jobs controller on Azure cannot have autostop (its VMs share the controller's resource group, which a head's stop would reach entirely)`,
        'drop resources.autostop from the managed job\'s task: the controller tears its cluster down when the job ends');
    }
    // Blob containers' storage accounts are found before anything is made (a missing one is config).
    const scopes = await containerScopes(c, containersOf(req.placement.bucketAccess));
    if (shared) {
      await jobsGroupThere(c, group);
    } else {
      // A previous attempt's group may still be deleting (teardown is asynchronous on Azure).
      await waitGroupGone(c, group, this.lro.updateIntervalInMs, 10 * 60_000, true);
      await azCall('resourceGroups.createOrUpdate', () => c.resources.resourceGroups.createOrUpdate(group, { location, tags: req.tags }));
    }
    const existing = await listVms(c, group, shared);
    if (existing.some((v) => v.power === 'stopping' || v.power === 'deallocating')) {
      throw new ProviderError('transient', 'some VMs are still stopping; they can be started once deallocated');
    }
    // Grants first: a node mounts as soon as it is up. A relaunch also drops grants it no longer needs.
    const controller = !!req.placement.jobsController;
    // On a controller VM a job cluster gets no identity of its own: the controller's jobs
    // identity, for its Blob mounts, granted them from this machine at submit (checked here).
    const viaJobs = !controller && this.jobsIdentity;
    const bucketIdentity = viaJobs
      ? scopes.length ? await checkJobsIdentity(c, viaJobs, scopes) : undefined
      : scopes.length || existing.length || controller
        ? await ensureBucketIdentity({ c, req, location, scopes, lro: this.lro, log: this.opts.log, controller }) : undefined;
    const lacking = bucketIdentity && existing.filter((v) => !Object.keys(v.vm.identity?.userAssignedIdentities ?? {}).some((k) => k.toLowerCase() === bucketIdentity.toLowerCase()));
    if (lacking && lacking.length) {
      throw new ProviderError('config', `${lacking.map((v) => v.vm.name).join(', ')} of ${req.clusterName} were made without the identity its Blob mounts need`, 'launch on a new cluster (-c), or down this one first');
    }
    const stopped = existing.filter((v) => v.power === 'deallocated' || v.power === 'stopped');
    await Promise.all(stopped.map((v) => this.startOne(c, group, v.vm.name!)));
    const resumed = stopped.map((v) => v.vm.name!);
    const need = req.numNodes - existing.length;
    if (need <= 0) return { created: [], resumed };
    // Sized once from the location's listing; createVm then sees it as the placement's type.
    const sized = req.placement.instanceType ? req : { ...req, placement: { ...req.placement, instanceType: pickSize(req.placement, shapeOf(req), await this.catalog(location)) } };

    const net = { c: c, group, location, tags: req.tags, lro: this.lro, sharedUid: shared };
    const subnetId = await ensureNetwork(net);
    const hasHead = existing.some((v) => v.vm.tags?.[TAG_HEAD] === 'true');
    const names = Array.from({ length: need }, () => vmName(req.clusterName, req.uid));
    const ctx = { ...net, subnetId, publicKey: this.localKey().publicKey, zone: req.placement.zone ?? req.zone, bucketIdentity, log: this.opts.log };
    // All awaited even after one fails, so no create is left in flight unseen.
    const results = await Promise.allSettled(names.map((n, i) => createVm(ctx, sized, n, !hasHead && i === 0)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return { created: names, resumed };
  }

  /** The group's VMs, and per VM name the parts a gone VM left billing (leftovers.ts). */
  async queryInstances(ref: ClusterRef): Promise<InstanceInfo[]> {
    const c = this.clientsFor(ref.account);
    const { group, shared } = this.placeOf(ref);
    // Both listings run together; a part seen without its VM (one being made or deleted right
    // then) shows as left for one look, which only delays a proof.
    const parts = azCall('leftovers', () => partsByVm(c, group, shared));
    parts.catch(() => undefined); // awaited below; a failure of the VM listing comes first
    const vms = await listVms(c, group, shared);
    const infos = vms.map((v) => infoOf(v.vm, v.view));
    await holdLeavingDeletes(c, group, vms, infos, await parts);
    return [...infos, ...leftOf(await parts, vms.map((v) => v.vm.name!)).map(([vm, ps]) => leftoverInfo(vm, ps))];
  }

  /** Deallocates (never just powers off: a powered-off VM still bills its compute). */
  async stopInstances(ref: ClusterRef): Promise<void> {
    const c = this.clientsFor(ref.account);
    const { group, shared } = this.placeOf(ref);
    const list = (await listVms(c, group, shared)).filter((v) => !v.power || v.power === 'running' || v.power === 'starting' || v.power === 'stopped');
    await Promise.all(list.map((v) => azCall('virtualMachines.deallocate', () => c.compute.virtualMachines.deallocate(group, v.vm.name!, this.lro).submitted())));
  }

  async startInstances(ref: ClusterRef): Promise<void> {
    const c = this.clientsFor(ref.account);
    const { group, shared } = this.placeOf(ref);
    const list = (await listVms(c, group, shared)).filter((v) => v.power === 'deallocated' || v.power === 'stopped');
    await Promise.all(list.map((v) => this.startOne(c, group, v.vm.name!)));
  }

  /**
   * The whole cluster: one resource-group delete, which takes VMs, disks, NICs, IPs, NSG and
   * VNet along. Some VMs only: those VMs (their disk, NIC and IP go with them, by their
   * deleteOptions); an id whose VM is gone but whose parts are left: those parts. Claims
   * nothing: the core proves it by querying (a deleted group lists no VMs, nor parts).
   */
  async terminateInstances(ref: ClusterRef, ids?: string[]): Promise<void> {
    const c = this.clientsFor(ref.account);
    const { group, shared } = this.placeOf(ref);
    // A controller's jobs group left by a crash, as the sweep names it (listing.ts emptyGroups):
    // by the name made from the uid, never one read from elsewhere.
    const jobsGroup = shared ? undefined : jobsGroupName(ref.uid);
    if (jobsGroup && ids?.some((id) => id.toLowerCase() === jobsGroup)) {
      await deleteJobsGroup(c, ref.uid, this.lro);
      ids = ids.filter((id) => id.toLowerCase() !== jobsGroup);
      if (!ids.length) return;
    }
    // A job cluster's VM in a controller's jobs group, as the sweep here names it ("<group>/<vm>").
    const inJobsGroups = shared ? [] : (ids ?? []).map((id) => ({ id, at: parseJobsVmId(id) })).filter((x) => x.at);
    if (inJobsGroups.length) {
      await Promise.all(inJobsGroups.map((x) => endJobsGroupVm(c, ref.uid, x.at!.group, x.at!.vm, this.lro)));
      ids = ids!.filter((id) => !inJobsGroups.some((x) => x.id === id));
      if (!ids.length) return;
    }
    // Blob grants and a controller's roles (subscription, jobs group) sit outside the group: proven
    // gone before the group (and with it the VMs and the identity) goes.
    await terminateIn(c, group, ids, this.lro, async () => {
      // A controller's job clusters have no identity of their own (nor may it read others').
      const jobsPrincipal = this.jobsIdentity ? undefined : await this.principalOf(c, jobsIdentityId(c.subscriptionId, ref.uid));
      // A controller's jobs identity loses every assignment it holds, Skydeck's or not, before it
      // goes. On a controller VM, none: a job cluster holds no grant of its own (its Blob grants
      // are the controller's, made and revoked from this machine), and the VM may delete none.
      const grants = this.jobsIdentity ? [] : await azCall('role assignments', () => revokeGrants(c, ref.uid, this.lro, this.opts.log, [], undefined, jobsPrincipal ? [jobsPrincipal] : []));
      const identity = !this.jobsIdentity && await this.identityExists(c, ref.uid);
      const jobs = !!jobsPrincipal;
      // A controller's jobs group (and whatever job clusters a crash left in it) goes with it, proven in releaseIdentities.
      const held = shared ? undefined : await deleteJobsGroup(c, ref.uid, this.lro);
      const before = this.ended.get(ref.uid);
      this.ended.set(ref.uid, {
        grants: [...(before?.grants ?? []), ...grants], identity: identity || !!before?.identity, jobs: jobs || !!before?.jobs,
        ...(held || before?.jobsGroup ? { jobsGroup: [...new Set([...(before?.jobsGroup ?? []), ...(held ?? [])])] } : {}),
      });
    }, shared);
  }

  /** From this machine, before a submit's grant: a managed job's containers given by name exist (bucketGrant.ts). */
  async checkBuckets(ref: ClusterRef, access: BucketAccess[]): Promise<void> {
    if (access.some((a) => a.mustExist)) await checkNamedContainers(this.clientsFor(ref.account), access);
  }

  /** New containers for a reused cluster's identity (bucketGrant.ts); on a controller VM, only checked (it grants nothing). */
  grantBuckets(ref: ClusterRef, access: BucketAccess[]): Promise<BucketGrant> {
    return grantContainers(this.clientsFor(ref.account), ref, access, this.lro, this.jobsIdentity);
  }

  /** A stray cluster's Blob grants and controller role assignment (no row, no VM: the caller checked), each proven gone. */
  async deleteIdentities(ref: ClusterRef): Promise<IdentityRelease> {
    if (this.jobsIdentity) {
      throw new ProviderError('config', `a managed-jobs controller VM deletes no role assignment (cluster ${ref.uid}'s)`, 'delete stray identities from your machine (skydeck leaks --delete-identity)');
    }
    const gone = await azCall('role assignments', () => revokeGrants(this.clientsFor(ref.account), ref.uid, this.lro, this.opts.log));
    return { gone: gone.map((g) => ({ kind: GRANT_KIND[g.kind], name: g.id, proof: 'GET answers 404' })), left: [] };
  }

  /**
   * After a confirmed down: the role assignments the terminate deleted (each proven by a GET
   * answering 404 then), any left since (deleted now), and a controller's user-assigned
   * identities (its own and its jobs identity), which go with its resource group: waited for
   * (bounded), then each proven by a GET answering 404.
   */
  async releaseIdentities(ref: ClusterRef, opts: ReleaseOptions): Promise<IdentityRelease> {
    const c = this.clientsFor(ref.account);
    const noted: { grants: Grant[]; identity: boolean; jobs?: boolean; jobsGroup?: string[] } = this.ended.get(ref.uid) ?? { grants: [], identity: false };
    this.ended.delete(ref.uid);
    // On a controller VM, nothing to delete (nor may it): see terminateInstances.
    const more = this.jobsIdentity ? [] : await azCall('role assignments', () => revokeGrants(c, ref.uid, this.lro, this.opts.log));
    const grants = [...noted.grants, ...more];
    const out: IdentityRelease = { gone: grants.map((g) => ({ kind: GRANT_KIND[g.kind], name: g.id, proof: `GET ${g.id} answers 404` })), left: [] };
    if (noted.jobsGroup) await proveJobsGroupGone(c, ref.uid, noted.jobsGroup, this.lro, opts, out);
    // A controller's identity is waited for (its group's delete takes minutes); a Blob-only
    // one holds nothing once its grants are gone, and goes with the group the down proved ending.
    if (!noted.identity || !grants.some((g) => g.kind === 'controller')) return out;
    const group = groupName(ref.uid);
    const id = bucketIdentityId(c.subscriptionId, ref.uid);
    const name = `${BUCKET_IDENTITY} of ${group}`;
    opts.progress(`Waiting for resource group ${group} to be deleted (the managed identity ${BUCKET_IDENTITY} goes with it)`);
    try {
      await waitGroupGone(c, group, this.lro.updateIntervalInMs, opts.timeoutMs);
    } catch {
      out.left.push({ kind: 'managed identity', name, why: `resource group ${group} was not deleted within ${Math.round(opts.timeoutMs / 1000)} s` });
      return out;
    }
    if (await this.identityExists(c, ref.uid)) out.left.push({ kind: 'managed identity', name, why: `GET ${id} still answers after its group's delete` });
    else out.gone.push({ kind: 'managed identity', name, proof: `GET ${id} answers 404 (resource group ${group} deleted)` });
    // Its jobs identity, in the same group (its assignments were deleted with proof above).
    if (noted.jobs) {
      const jid = jobsIdentityId(c.subscriptionId, ref.uid);
      const jname = `${JOBS_IDENTITY} of ${group}`;
      if (await this.identityExists(c, ref.uid, jid)) out.left.push({ kind: 'managed identity', name: jname, why: `GET ${jid} still answers after its group's delete` });
      else out.gone.push({ kind: 'managed identity', name: jname, proof: `GET ${jid} answers 404 (resource group ${group} deleted)` });
    }
    return out;
  }

  /**
   * What the CLI on a controller VM needs: the subscription, and which of the VM's identities
   * to sign in as (the cluster's user-assigned one holding the controller role, not the
   * system-assigned one autostop uses). By resource id, which is known from the uid alone
   * (the client id is only known once the identity exists); clients.ts hands it to the credential.
   * And its jobs identity, the one its job clusters carry (bucketIdentity.ts). And this
   * machine's AZURE_STORAGE_ACCOUNT when set: the account a container given by `name:` is in,
   * which a submit resolves and grants here (controllerBuckets.ts), so the VM's launch names the
   * same one (ops/bucketPlan.ts reads it there).
   */
  controllerNodeEnv(ref: ClusterRef): Record<string, string> {
    const sub = ref.account ?? this.clients.subscriptionId;
    const account = process.env.AZURE_STORAGE_ACCOUNT;
    return { AZURE_SUBSCRIPTION_ID: sub, [MI_RESOURCE_ENV]: bucketIdentityId(sub, ref.uid), [JOBS_IDENTITY_ENV]: jobsIdentityId(sub, ref.uid), ...(account ? { AZURE_STORAGE_ACCOUNT: account } : {}) };
  }

  /** On a controller VM a job cluster's nodes read as the jobs identity; elsewhere, as the cluster's own. */
  bucketIdentity(ref: ClusterRef): string | undefined {
    return this.jobsIdentity ?? bucketIdentityId(this.clientsFor(ref.account).subscriptionId, ref.uid);
  }

  waitInstances(ref: ClusterRef, goal: 'running' | 'stopped' | 'terminated', timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return waitUntil(() => this.queryInstances(ref), goal, `VMs of ${ref.uid}`, timeoutMs, this.lro.updateIntervalInMs, signal);
  }

  async clusterInfo(ref: ClusterRef): Promise<ClusterInfo> {
    const c = this.clientsFor(ref.account);
    const { group, shared } = this.placeOf(ref);
    const running = (await listVms(c, group, shared)).filter((v) => v.power === 'running');
    const head = running.find((v) => v.vm.tags?.[TAG_HEAD] === 'true')
      ?? [...running].sort((a, b) => (a.vm.timeCreated?.getTime() ?? 0) - (b.vm.timeCreated?.getTime() ?? 0) || a.vm.name!.localeCompare(b.vm.name!))[0];
    if (!head) throw new ProviderError('transient', `no running VM of ${ref.uid} yet`);
    const ips = await azCall('networkInterfaces.list', () => addressesOf(c, group));
    const address = (name: string) => {
      const a = ips.get(name);
      return (this.opts.usePrivateIps ? a?.privateIp : a?.publicIp ?? a?.privateIp) ?? '';
    };
    if (!address(head.vm.name!)) throw new ProviderError('transient', `head ${head.vm.name} has no IP address yet`);
    return {
      head: { id: head.vm.name!, address: address(head.vm.name!) },
      workers: running.filter((v) => v !== head).map((v) => ({ id: v.vm.name!, address: address(v.vm.name!) })),
      sshUser: AZURE_SSH_USER, sshKeyPath: this.localKey().privatePath, sshPort: 22,
    };
  }

  /**
   * Every VM of the subscription (default: the configured one) carrying the Skydeck uid tag,
   * with its power state. ARM lists a subscription's VMs of every location in one call, so
   * there is no per-location part to miss: a failure is the whole subscription's.
   */
  listTagged(account?: string): Promise<TaggedListing> {
    // On a controller VM: its jobs group alone (its role reaches no other group's VMs).
    if (this.jobsIdentity) return listJobsGroup(this.clientsFor(account), this.placeOf({ uid: 'x' }).group);
    return listSubscription(this.clientsFor(account));
  }

  async openPorts(ref: ClusterRef, ports: PortRange[]): Promise<void> {
    const c = this.clientsFor(ref.account);
    const { group, shared } = this.placeOf(ref);
    await azCall('securityRules', () => openNsgPorts(c, group, ports, this.lro, shared));
  }

  /** The location's VM-size catalog (cached on disk with its fetch time). */
  catalog(location: string): Promise<InstanceType[]> {
    let c = this.catalogs.get(location);
    if (!c) {
      c = azureCatalog(this.clients, location, this.opts.catalogDir ?? defaultCatalogDir(), this.opts.log);
      this.catalogs.set(location, c);
    }
    return c;
  }

  /** Whether the cluster's resource group still exists (tests; teardown's "nothing orphaned"). */
  async groupExists(uid: string, subscription?: string): Promise<boolean> {
    return azCall('resourceGroups.checkExistence', async () => (await this.clientsFor(subscription).resources.resourceGroups.checkExistence(groupName(uid))).body);
  }

  /** The identity's principal id; undefined when it does not exist. */
  private principalOf(c: AzureClients, id: string): Promise<string | undefined> {
    return azCall('userAssignedIdentities.get', async () => {
      try {
        const mi = await c.resources.resources.getById(id.slice(1), MI_API);
        return (mi.properties as { principalId?: string } | undefined)?.principalId ?? '';
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    });
  }

  private identityExists(c: AzureClients, uid: string, id = bucketIdentityId(c.subscriptionId, uid)): Promise<boolean> {
    return azCall('userAssignedIdentities.get', async () => {
      try {
        await c.resources.resources.getById(id.slice(1), MI_API);
        return true;
      } catch (e) {
        if (isNotFound(e)) return false;
        throw e;
      }
    });
  }

  private get lro(): { updateIntervalInMs: number } {
    return { updateIntervalInMs: this.opts.pollMs ?? 2000 };
  }

  private startOne(c: AzureClients, group: string, name: string): Promise<void> {
    // Awaited: starting a deallocated VM needs hardware and fails with AllocationFailed like a create.
    return azCall('virtualMachines.start', () => c.compute.virtualMachines.start(group, name, this.lro));
  }

  private localKey(): LocalKey {
    this.key ??= ensureLocalKey(this.opts.keyDir ?? defaultKeyDir());
    return this.key;
  }
}
