import { FirewallsClient, GlobalOperationsClient, InstancesClient, ZoneOperationsClient, ZonesClient } from './sdk';
// By its own path, as sdk.ts does for the others (the package index loads every client).
import { MachineTypesClient } from '@google-cloud/compute/build/src/v1/machine_types_client';
import { ProviderError } from '../provider';
import { localProject, PROJECT_FIX } from './project';
import type { GcpProviderOptions } from './options';

/**
 * The Compute clients one provider uses, built once with the same endpoint and auth. The REST
 * transport (fallback) is used everywhere: it needs no gRPC native bits and is what the API
 * documents, so the local fake in the tests sees exactly the production requests.
 */
export class GcpClients {
  readonly instances: InstancesClient;
  readonly zoneOps: ZoneOperationsClient;
  readonly globalOps: GlobalOperationsClient;
  readonly firewalls: FirewallsClient;
  readonly zones: ZonesClient;
  readonly machineTypes: MachineTypesClient;
  private project?: Promise<string>;

  constructor(readonly options: GcpProviderOptions) {
    // ClientOptions of google-gax; authClient is typed `unknown` in our options to keep them SDK-free.
    const common: ConstructorParameters<typeof InstancesClient>[0] & Record<string, unknown> = { fallback: true };
    if (options.apiEndpoint) common.apiEndpoint = options.apiEndpoint;
    if (options.port) common.port = options.port;
    if (options.protocol) common.protocol = options.protocol;
    if (options.authClient) common.authClient = options.authClient as typeof common.authClient;
    this.instances = new InstancesClient(common);
    this.zoneOps = new ZoneOperationsClient(common);
    this.globalOps = new GlobalOperationsClient(common);
    this.firewalls = new FirewallsClient(common);
    this.zones = new ZonesClient(common);
    this.machineTypes = new MachineTypesClient(common);
  }

  /** The project: found locally (option, env, gcloud config, ADC file), else asked of the auth library (GCE metadata). */
  projectId(): Promise<string> {
    this.project ??= (async () => {
      const local = localProject(this.options);
      if (local) return local;
      try {
        return await this.instances.getProjectId();
      } catch {
        throw new ProviderError('auth', 'no GCP project is configured', PROJECT_FIX);
      }
    })();
    this.project.catch(() => (this.project = undefined)); // a later fix (gcloud config) is picked up
    return this.project;
  }

  async close(): Promise<void> {
    await Promise.all([this.instances, this.zoneOps, this.globalOps, this.firewalls, this.zones, this.machineTypes].map((c) => c.close().catch(() => undefined)));
  }
}
