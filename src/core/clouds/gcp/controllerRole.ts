import type { IamPurpose } from './iamErrors';
import { customRoleName, type BindingCondition, type RoleSpec } from './customRole';

// What a managed-jobs controller VM may do with its own identity (its cluster's service account,
// the same per-cluster account bucket mounts use: bucketIdentity.ts) through two project-level
// custom roles: launch, stop, start, delete and list job clusters the way the GCP provider does
// (gcpProvider.ts, launch.ts, firewall.ts, listing.ts, operations.ts, catalogFetch.ts), and no
// more. Every REST call the provider makes on that path, and what GCP checks for it (instance
// and disk permissions: on the new or named instance and its boot disk, see below):
//   instances.aggregatedList (every lookup of a cluster, the sweep)  compute.instances.list
//   instances.insert            compute.instances.create, compute.disks.create (boot disk),
//                               compute.disks.setLabels (its labels), compute.instances.setLabels,
//                               compute.instances.setMetadata (ssh-keys, the Skydeck tags item; no
//                               network tag, so no compute.instances.setTags), compute.subnetworks.use and
//                               compute.subnetworks.useExternalIp (the default VPC's subnet, a public
//                               IP), compute.images.useReadOnly (a task's own image_id in the project),
//                               compute.instances.setServiceAccount (every job cluster runs as the
//                               controller's jobs account), and iam.serviceAccounts.actAs
//                               on that one account, granted in its own policy (below)
//   instances.start / resume / stop / delete   compute.instances.start / resume / stop / delete
//   zoneOperations.wait         compute.zoneOperations.get
//   firewalls.get               compute.firewalls.get (that the controller's jobs rule exists and
//                               targets its jobs account, before a job launch: a job cluster it does
//                               not reach would not answer SSH)
//   machineTypes.list           compute.machineTypes.list (the catalog, when a task names no type)
//   serviceAccounts.list        iam.serviceAccounts.list (the listing's Skydeck accounts, read only)
// The project id comes from the metadata server (google-auth-library's ADC on GCE): no call.
//
// The instance and disk permissions are bounded by name: job clusters the controller launches get
// instance names starting with JOB_INSTANCE_PREFIX (launch.ts instanceName; their boot disks
// take the instance's name), and those permissions sit in a second custom role,
// skydeckJobClusters, bound to the same account with an IAM Condition that passes only an
// Instance or Disk resource whose name has that prefix (JOB_CLUSTERS_CONDITION). The rest stays
// in skydeckJobsController, bound without a condition. Why two roles: IAM Conditions' resource
// attributes are recognized for Compute Engine's Instance and Disk types (conditions-resource-
// attributes), but a list is checked on the project, an operation wait on the operation, a subnet
// use on the subnetwork, so one conditioned role would have to pass every other resource type
// (`resource.type != Instance || ...`), which grants its instance permissions again wherever a
// check names another type; two roles grant each permission only where it is meant to hold.
// instances.insert is checked on the new instance's (and boot disk's) own name, so the controller
// can only create prefixed VMs, and stop / start / delete / setMetadata / setLabels /
// setServiceAccount only those. The condition uses extract() with one placeholder (the documented
// form) rather than the full projects/{p}/zones/{z}/... template, and compares the name only, so
// the project id vs number and the zone do not matter. Conditional bindings need a version 3
// policy: customRole.ts reads and writes version 3 and keeps every other binding's condition.
//
// Left out on purpose, so the controller cannot widen itself:
// - Every firewall write (compute.firewalls.create / update / delete, compute.networks.updatePolicy,
//   and compute.globalOperations.get, which only firewall operations needed). IAM Conditions
//   cannot narrow them (their resource attributes cover Instance and Disk, not Firewall), so held
//   at all they would let the controller open any port to any VM of the project (a rule on that
//   VM's network tag). Instead this machine makes one rule for all of the controller's job
//   clusters at its launch, skydeck-<uid>-jobs (jobsFirewall.ts: SSH only, to instances running
//   as the controller's jobs account), and deletes it at its down with proof; job clusters run as
//   that account (controllerNodeEnv: SKYDECK_GCP_JOBS_ACCOUNT, and SKYDECK_GCP_JOBS_RULE names the
//   rule the VM checks), and a job task asking ports is refused on the VM (it could not open
//   them). A relaunch of a controller an older Skydeck made sets its role back to this list
//   (customRole.ts), taking the firewall rights away, and replaces a tag-targeted jobs rule.
// - compute.instances.setTags, even on job clusters only. IAM cannot narrow a tag's value, so with
//   it the controller could give its job VM any network tag of the project: a user cluster's
//   (whose rule opens that cluster's ports to 0.0.0.0/0), or one another rule takes as a source.
//   That is why the jobs rule targets an account (the one the controller may attach) and not a
//   tag, and job clusters carry no network tag (an insert setting one needs the permission too).
// - iam.serviceAccounts.actAs on the project. IAM Conditions' resource attributes do not cover
//   IAM service accounts (cloud.google.com/iam/docs/conditions-resource-attributes lists no
//   iam.googleapis.com), so actAs cannot be narrowed to Skydeck's accounts by resource.name at
//   the project; granted there it would reach every account of the project, the Compute Engine
//   default one (Editor) included. Instead this machine makes one account per controller, the
//   jobs account (jobsAccount.ts, skydeck-ja-; a service account, not an instance, so the name
//   condition above never concerns it), and grants the controller's account
//   roles/iam.serviceAccountUser in that account's own IAM policy only: a job cluster with GCS
//   mounts runs as it (granted the job's buckets at submit, controllerBuckets.ts), and attaching
//   any other account is refused by IAM. compute.instances.setServiceAccount is an instance
//   permission, in the conditioned role: it reaches skydeck-j- VMs only, and through them that one
//   account only. A job task asking autodown is refused (the autodown account cannot be attached;
//   the controller ends its clusters itself). Creating or deleting accounts would serve nothing,
//   so they are not granted either.
// - Every IAM policy write (projects.setIamPolicy, roles.*, storage.buckets.setIamPolicy) and
//   service-account keys: the roles and their bindings are made by this machine's credentials at
//   the controller's launch, and its buckets are granted from here too (controllerBuckets.ts).
// The hole this closes: with setMetadata on every VM, the controller could put a startup script or
// ssh key on any VM of the project (one running as the Compute Engine default account, which holds
// Editor) and restart it, widening its reach to the whole project. Now it can change, stop or delete
// only VMs named skydeck-j-…; its own VM and every cluster launched from a user's machine are
// named otherwise (launch.ts keeps any other name off the prefix), so they are out of its reach.
// Known limits, which remain:
// - Any VM of the project someone else names skydeck-j-… is in its reach (GCP cannot test labels
//   in a condition), to the point of making it, once stopped, run as the jobs account. Do not
//   name VMs so.
// - Job clusters launched before this change (names without the prefix) can no longer be stopped
//   or deleted by the controller: a refusal names the permission; down them from this machine.
// - It reads (not changes) every firewall rule of the project by name (firewalls.get cannot be
//   narrowed either).
// - A job cluster launched while the jobs rule targeted a network tag (an older Skydeck), and ran
//   as no account, is not reached by the replaced rule (no SSH from the controller): relaunch a
//   controller once its jobs are done, as its refusal says.
// - Job clusters launched before this change have a rule of their own (skydeck-<uid>) that the
//   controller may no longer delete when it ends them: it is left; delete it from this machine
//   (gcloud compute firewall-rules delete skydeck-<uid>).
// - A VM it creates (prefixed) may carry any startup script and run as the jobs account or none:
//   it reaches nothing the controller does not (the jobs account holds the buckets the controller's
//   own account is granted at each submit), but every job cluster reaches the buckets of every
//   job this controller has served: the jobs account collects them until the controller's down.
// - Where GCP checks compute.disks.create / setLabels of an insert's boot disk (the new disk, by
//   its name, which is the instance's: what the Disk clause assumes) is not stated per resource
//   in Compute's reference; were it the project, every job launch would be refused with that
//   permission named, and disks.* would move to the plain role (a disk grants no identity).
// - It reads (not changes) every Skydeck and other service account's listing entry, and lists
//   every instance of the project.
// - Any region and zone: job clusters go where their task says.
// - The lists and the condition were checked against Compute's permission reference, IAM's
//   conditions reference and the local fake (which refuses a VM-token call whose permission no
//   binding grants on that resource, evaluating the condition), not yet against real GCP.

/** The instance-name prefix of every job cluster a GCP controller VM launches (and of no other VM Skydeck makes). */
export const JOB_INSTANCE_PREFIX = 'skydeck-j-';

export const CONTROLLER_ROLE_ID = 'skydeckJobsController';
export const JOB_CLUSTERS_ROLE_ID = 'skydeckJobClusters';

/** Bound without a condition: what is checked on the project, operations, subnets, images, and a firewall read (no firewall write). */
export const CONTROLLER_PERMISSIONS: readonly string[] = [
  'compute.firewalls.get',
  'compute.images.useReadOnly',
  'compute.instances.list',
  'compute.machineTypes.list',
  'compute.subnetworks.use', 'compute.subnetworks.useExternalIp',
  'compute.zoneOperations.get',
  'iam.serviceAccounts.list',
];

/** Bound under JOB_CLUSTERS_CONDITION: checked on an instance (or its boot disk), so only job clusters' pass. */
export const JOB_CLUSTER_PERMISSIONS: readonly string[] = [
  'compute.disks.create', 'compute.disks.setLabels',
  'compute.instances.create', 'compute.instances.delete', 'compute.instances.resume',
  'compute.instances.setLabels', 'compute.instances.setMetadata', 'compute.instances.setServiceAccount',
  'compute.instances.start', 'compute.instances.stop',
];

const nameHasPrefix = (type: string, collection: string) =>
  `(resource.type == "compute.googleapis.com/${type}" && resource.name.extract("/${collection}/{name}").startsWith("${JOB_INSTANCE_PREFIX}"))`;

export const JOB_CLUSTERS_CONDITION: BindingCondition = {
  title: 'skydeck job clusters only',
  description: `Instances and disks named ${JOB_INSTANCE_PREFIX}*: the job clusters a Skydeck jobs controller launches`,
  expression: `${nameHasPrefix('Instance', 'instances')} || ${nameHasPrefix('Disk', 'disks')}`,
};

export const CONTROLLER: IamPurpose = {
  label: 'GCP managed-jobs controller',
  instead: 'or put the managed-jobs controller on this machine or an ssh pool (jobs.controller)',
};

export const CONTROLLER_ROLE: RoleSpec = {
  id: CONTROLLER_ROLE_ID, title: 'Skydeck jobs controller',
  description: 'What a Skydeck managed-jobs controller VM needs project-wide to launch and list job clusters (their instances: skydeckJobClusters)',
  permissions: CONTROLLER_PERMISSIONS, purpose: CONTROLLER,
};

export const JOB_CLUSTERS_ROLE: RoleSpec = {
  id: JOB_CLUSTERS_ROLE_ID, title: 'Skydeck job clusters',
  description: `What a Skydeck managed-jobs controller VM may do to its job clusters' instances (bound for names ${JOB_INSTANCE_PREFIX}* only)`,
  permissions: JOB_CLUSTER_PERMISSIONS, purpose: CONTROLLER,
};

export const controllerRole = (project: string) => customRoleName(project, CONTROLLER_ROLE_ID);
export const jobClustersRole = (project: string) => customRoleName(project, JOB_CLUSTERS_ROLE_ID);
