import type { VirtualMachine } from '@azure/arm-compute';
import {
  ProviderError, TAG_UID, type ClusterInfo, type ClusterRef, type InstanceInfo, type Provider, type RunRequest, type RunResult,
} from '../provider';
import { waitUntil } from '../waitInstances';
import type { PortRange } from '../../task';
import { defaultCatalogDir, type InstanceType } from '../../catalog';
import { azureCatalog } from './catalogFetch';
import { ensureLocalKey, defaultKeyDir, type LocalKey } from '../localKey';
import { AzureClients } from './clients';
import { azCall, isNotFound } from './errors';
import { groupName, groupOf, TAG_HEAD, vmName } from './names';
import { addressesOf, ensureNetwork, openNsgPorts } from './network';
import { AZURE_SSH_USER, DEFAULT_LOCATION, type AzureProviderOptions } from './options';
import { infoOf } from './status';
import { emptyGroups, instanceViewOf, listVms } from './listing';
import { createVm, pickSize, shapeOf } from './vm';
import { waitGroupGone } from './group';

/** Azure VMs behind the Provider interface (SkyPilot's sky/provision/azure/instance.py, in TypeScript). */
export class AzureProvider implements Provider {
  readonly cloud = 'azure';
  private clientsCache?: AzureClients;
  private key?: LocalKey;
  private readonly catalogs = new Map<string, Promise<InstanceType[]>>();

  constructor(private readonly opts: AzureProviderOptions = {}) {}

  /** Built on first use: a missing subscription is then a typed auth error of that call. */
  get clients(): AzureClients {
    this.clientsCache ??= new AzureClients(this.opts);
    return this.clientsCache;
  }

  async runInstances(req: RunRequest): Promise<RunResult> {
    const group = groupName(req.uid);
    const location = req.placement.region ?? req.region ?? this.opts.region ?? DEFAULT_LOCATION;
    // A previous attempt's group may still be deleting (teardown is asynchronous on Azure).
    await waitGroupGone(this.clients, group, this.lro.updateIntervalInMs, 10 * 60_000, true);
    await azCall('resourceGroups.createOrUpdate', () => this.clients.resources.resourceGroups.createOrUpdate(group, { location, tags: req.tags }));
    const existing = await listVms(this.clients, group);
    if (existing.some((v) => v.power === 'stopping' || v.power === 'deallocating')) {
      throw new ProviderError('transient', 'some VMs are still stopping; they can be started once deallocated');
    }
    const stopped = existing.filter((v) => v.power === 'deallocated' || v.power === 'stopped');
    await Promise.all(stopped.map((v) => this.startOne(group, v.vm.name!)));
    const resumed = stopped.map((v) => v.vm.name!);
    const need = req.numNodes - existing.length;
    if (need <= 0) return { created: [], resumed };
    // Sized once from the location's listing; createVm then sees it as the placement's type.
    const sized = req.placement.instanceType ? req : { ...req, placement: { ...req.placement, instanceType: pickSize(req.placement, shapeOf(req), await this.catalog(location)) } };

    const net = { c: this.clients, group, location, tags: req.tags, lro: this.lro };
    const subnetId = await ensureNetwork(net);
    const hasHead = existing.some((v) => v.vm.tags?.[TAG_HEAD] === 'true');
    const names = Array.from({ length: need }, () => vmName(req.clusterName, req.uid));
    const ctx = { ...net, subnetId, publicKey: this.localKey().publicKey, zone: req.placement.zone ?? req.zone };
    // All awaited even after one fails, so no create is left in flight unseen.
    const results = await Promise.allSettled(names.map((n, i) => createVm(ctx, sized, n, !hasHead && i === 0)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return { created: names, resumed };
  }

  async queryInstances(ref: ClusterRef): Promise<InstanceInfo[]> {
    return (await listVms(this.clients, groupName(ref.uid))).map((v) => infoOf(v.vm, v.view));
  }

  /** Deallocates (never just powers off: a powered-off VM still bills its compute). */
  async stopInstances(ref: ClusterRef): Promise<void> {
    const group = groupName(ref.uid);
    const list = (await listVms(this.clients, group)).filter((v) => !v.power || v.power === 'running' || v.power === 'starting' || v.power === 'stopped');
    await Promise.all(list.map((v) => azCall('virtualMachines.deallocate', () => this.clients.compute.virtualMachines.deallocate(group, v.vm.name!, this.lro).submitted())));
  }

  async startInstances(ref: ClusterRef): Promise<void> {
    const group = groupName(ref.uid);
    const list = (await listVms(this.clients, group)).filter((v) => v.power === 'deallocated' || v.power === 'stopped');
    await Promise.all(list.map((v) => this.startOne(group, v.vm.name!)));
  }

  /**
   * The whole cluster: one resource-group delete, which takes VMs, disks, NICs, IPs, NSG and
   * VNet along. Some VMs only: those VMs (their disk, NIC and IP go with them). Claims nothing:
   * the core proves it by querying (a deleted group lists no VMs).
   */
  async terminateInstances(ref: ClusterRef, ids?: string[]): Promise<void> {
    const group = groupName(ref.uid);
    const ignoreGone = (e: unknown) => {
      if (!isNotFound(e)) throw e;
    };
    // Ids naming every VM of the group (the sweep ends a leaked cluster one id at a time, and
    // an empty group's pseudo-instance is the group's name) end the whole group.
    const whole = !ids || (await listVms(this.clients, group)).every((v) => ids.includes(v.vm.name!));
    if (whole) {
      await azCall('resourceGroups.delete', () => this.clients.resources.resourceGroups
        .delete(group, { ...this.lro, forceDeletionTypes: 'Microsoft.Compute/virtualMachines' }).submitted().catch(ignoreGone));
      return;
    }
    await Promise.all(ids.map((id) => azCall('virtualMachines.delete', () => this.clients.compute.virtualMachines.delete(group, id, this.lro).submitted().catch(ignoreGone))));
  }

  waitInstances(ref: ClusterRef, goal: 'running' | 'stopped' | 'terminated', timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return waitUntil(() => this.queryInstances(ref), goal, `VMs of ${ref.uid}`, timeoutMs, this.lro.updateIntervalInMs, signal);
  }

  async clusterInfo(ref: ClusterRef): Promise<ClusterInfo> {
    const group = groupName(ref.uid);
    const running = (await listVms(this.clients, group)).filter((v) => v.power === 'running');
    const head = running.find((v) => v.vm.tags?.[TAG_HEAD] === 'true')
      ?? [...running].sort((a, b) => (a.vm.timeCreated?.getTime() ?? 0) - (b.vm.timeCreated?.getTime() ?? 0) || a.vm.name!.localeCompare(b.vm.name!))[0];
    if (!head) throw new ProviderError('transient', `no running VM of ${ref.uid} yet`);
    const ips = await azCall('networkInterfaces.list', () => addressesOf(this.clients, group));
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

  /** Every VM of the subscription carrying the Skydeck uid tag, with its power state. */
  async listTagged(): Promise<InstanceInfo[]> {
    const tagged = await azCall('virtualMachines.listAll', async () => {
      const out: VirtualMachine[] = [];
      for await (const vm of this.clients.compute.virtualMachines.listAll()) if (vm.tags?.[TAG_UID]) out.push(vm);
      return out;
    });
    const withViews = await Promise.all(tagged.map(async (vm) => ({ vm, view: await instanceViewOf(this.clients, groupOf(vm.id), vm.name!) })));
    const vms = withViews.filter((v) => v.view !== null).map((v) => infoOf(v.vm, v.view ?? undefined));
    return [...vms, ...(await emptyGroups(this.clients, new Set(tagged.map((vm) => groupOf(vm.id).toLowerCase()))))];
  }

  async openPorts(ref: ClusterRef, ports: PortRange[]): Promise<void> {
    await azCall('securityRules', () => openNsgPorts(this.clients, groupName(ref.uid), ports, this.lro));
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
  async groupExists(uid: string): Promise<boolean> {
    return azCall('resourceGroups.checkExistence', async () => (await this.clients.resources.resourceGroups.checkExistence(groupName(uid))).body);
  }

  private get lro(): { updateIntervalInMs: number } {
    return { updateIntervalInMs: this.opts.pollMs ?? 2000 };
  }

  private startOne(group: string, name: string): Promise<void> {
    // Awaited: starting a deallocated VM needs hardware and fails with AllocationFailed like a create.
    return azCall('virtualMachines.start', () => this.clients.compute.virtualMachines.start(group, name, this.lro));
  }

  private localKey(): LocalKey {
    this.key ??= ensureLocalKey(this.opts.keyDir ?? defaultKeyDir());
    return this.key;
  }
}
