import type { IamPurpose } from './iamErrors';
import { customRoleName, type RoleSpec } from './customRole';

// What a managed-jobs controller VM may do with its own identity (its cluster's service account,
// the same per-cluster account bucket mounts use: bucketIdentity.ts) through one project-level
// custom role: launch, stop, start, delete and list job clusters the way the GCP provider does
// (gcpProvider.ts, launch.ts, firewall.ts, listing.ts, operations.ts, catalogFetch.ts), and no
// more. Every REST call the provider makes on that path, and what GCP checks for it:
//   instances.aggregatedList (every lookup of a cluster, the sweep)  compute.instances.list
//   instances.insert            compute.instances.create, compute.disks.create (boot disk),
//                               compute.disks.setLabels (its labels), compute.instances.setLabels,
//                               compute.instances.setMetadata (ssh-keys, tags), compute.instances.setTags
//                               (the firewall's network tag), compute.subnetworks.use and
//                               compute.subnetworks.useExternalIp (the default VPC's subnet, a public
//                               IP), compute.images.useReadOnly (a task's own image_id in the project),
//                               compute.instances.setServiceAccount (a job cluster with GCS mounts
//                               runs as the controller's jobs account), and iam.serviceAccounts.actAs
//                               on that one account, granted in its own policy (below)
//   instances.start / resume / stop / delete   compute.instances.start / resume / stop / delete
//   zoneOperations.wait         compute.zoneOperations.get
//   firewalls.get               compute.firewalls.get
//   firewalls.insert / patch / delete   compute.firewalls.create / update / delete, and
//                               compute.networks.updatePolicy on the network each rule belongs to
//   globalOperations.wait       compute.globalOperations.get
//   machineTypes.list           compute.machineTypes.list (the catalog, when a task names no type)
//   serviceAccounts.list        iam.serviceAccounts.list (the listing's Skydeck accounts, read only)
// The project id comes from the metadata server (google-auth-library's ADC on GCE): no call.
//
// Left out on purpose, so the controller cannot widen itself:
// - iam.serviceAccounts.actAs on the project. IAM Conditions' resource attributes do not cover
//   IAM service accounts (cloud.google.com/iam/docs/conditions-resource-attributes lists no
//   iam.googleapis.com), so actAs cannot be narrowed to Skydeck's accounts by resource.name at
//   the project; granted there it would reach every account of the project, the Compute Engine
//   default one (Editor) included. Instead this machine makes one account per controller, the
//   jobs account (jobsAccount.ts, skydeck-j-), and grants the controller's account
//   roles/iam.serviceAccountUser in that account's own IAM policy only: a job cluster with GCS
//   mounts runs as it (granted the job's buckets at submit, controllerBuckets.ts), and attaching
//   any other account is refused by IAM. So compute.instances.setServiceAccount (in the list)
//   reaches that account only: on a stopped VM of the project too, whose software then gets the
//   jobs' buckets (no more than setMetadata already gives, below). A job task asking autodown is
//   refused (the autodown account cannot be attached; the controller ends its clusters itself).
//   Creating or deleting accounts would serve nothing, so they are not granted either.
// - Every IAM policy write (projects.setIamPolicy, roles.*, storage.buckets.setIamPolicy) and
//   service-account keys: the role and its binding are made by this machine's credentials at the
//   controller's launch, and its buckets are granted from here too (controllerBuckets.ts).
// Known limits, which GCP cannot express for these calls:
// - Instances and firewall rules are project-wide: a job cluster's instance names start with the
//   cluster's name, not a fixed prefix, and IAM conditions cannot test labels, so the controller
//   may stop or delete any VM of the project, its own included (AWS denies its own instance by
//   tag; an IAM deny policy here would need Resource Manager tags on every VM). It stops itself by
//   an OS shutdown, which needs none of this.
// - The same holds for compute.instances.setMetadata, which lets the VM widen its own reach: it
//   could put a startup script (or ssh key) on another VM of the project and restart it, and the
//   script runs as that VM's service account (the Compute Engine default one holds Editor). A
//   fixed instance-name prefix for job clusters would let a resource.name condition bound it;
//   not built yet. Until then the VM's software is trusted as this machine's CLI is.
// - It reads (not changes) every Skydeck and other service account's listing entry.
// - Any region and zone: job clusters go where their task says.
// - The list was checked against Compute's permission reference and the local fake (which
//   refuses a VM-token call whose permission the role lacks), not yet against real GCP.

export const CONTROLLER_ROLE_ID = 'skydeckJobsController';

export const CONTROLLER_PERMISSIONS: readonly string[] = [
  'compute.disks.create', 'compute.disks.setLabels',
  'compute.firewalls.create', 'compute.firewalls.delete', 'compute.firewalls.get', 'compute.firewalls.update',
  'compute.globalOperations.get', 'compute.images.useReadOnly',
  'compute.instances.create', 'compute.instances.delete', 'compute.instances.list', 'compute.instances.resume',
  'compute.instances.setLabels', 'compute.instances.setMetadata', 'compute.instances.setServiceAccount', 'compute.instances.setTags',
  'compute.instances.start', 'compute.instances.stop',
  'compute.machineTypes.list', 'compute.networks.updatePolicy',
  'compute.subnetworks.use', 'compute.subnetworks.useExternalIp',
  'compute.zoneOperations.get',
  'iam.serviceAccounts.list',
];

export const CONTROLLER: IamPurpose = {
  label: 'GCP managed-jobs controller',
  instead: 'or put the managed-jobs controller on this machine or an ssh pool (jobs.controller)',
};

export const CONTROLLER_ROLE: RoleSpec = {
  id: CONTROLLER_ROLE_ID, title: 'Skydeck jobs controller',
  description: 'What a Skydeck managed-jobs controller VM needs to launch, stop, start, delete and list job clusters',
  permissions: CONTROLLER_PERMISSIONS, purpose: CONTROLLER,
};

export const controllerRole = (project: string) => customRoleName(project, CONTROLLER_ROLE_ID);
