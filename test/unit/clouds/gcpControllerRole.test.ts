// The GCP managed-jobs controller's custom roles (controllerRole.ts) and the controller's machine
// types (gcpShipped.ts, namedOnly): each role is an exact, sorted list, together holding nothing
// that writes IAM or lends an account (setServiceAccount is there, in the conditioned role: actAs,
// which attaching also needs, is held on the jobs account only), and every instance permission is
// in the role bound under the name condition, which passes job clusters' instances and disks and
// nothing else (evaluated by the GCP fake's condition evaluator); instance names keep the prefix
// for the controller's job clusters only, and the jobs account's id has its own prefix. The
// named-only types resolve by name and are never picked for a shape. What each provider call
// needs (and that actAs reaches the jobs account only) is checked against the fake in
// test/integration/gcp/jobsController.test.ts.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  CONTROLLER_PERMISSIONS, CONTROLLER_ROLE, JOB_CLUSTER_PERMISSIONS, JOB_CLUSTERS_CONDITION, JOB_CLUSTERS_ROLE, JOB_INSTANCE_PREFIX, controllerRole, jobClustersRole,
} from '../../../src/core/clouds/gcp/controllerRole';
import { instanceName } from '../../../src/core/clouds/gcp/launch';
import { JOBS_ACCOUNT_PREFIX, bucketAccountId, jobsAccountId, tagsOfAccount } from '../../../src/core/clouds/gcp/accountTags';
import { TAG_UID, TAG_WORKSPACE } from '../../../src/core/clouds/provider';
import { UnevaluableCondition, evaluateCondition } from '../../support/fakes/gcpFake/conditions';
import { pickMachine } from '../../../src/core/clouds/gcp/shape';
import { classifyGcpError } from '../../../src/core/clouds/gcp/errors';
import { GCP_SHIPPED } from '../../../src/core/catalog/gcpShipped';
import { fittingTypes, withPrices, type ShapeRequest } from '../../../src/core/catalog';
import type { Quantity } from '../../../src/core/task/types';
import { PriceBook, isKnown } from '../../../src/core/cost';

describe('gcp managed-jobs controller role', () => {
  it('is a sorted list without repeats, named projects/P/roles/skydeckJobsController', () => {
    assert.deepEqual([...CONTROLLER_PERMISSIONS], [...new Set(CONTROLLER_PERMISSIONS)].sort());
    assert.equal(controllerRole('p-1'), 'projects/p-1/roles/skydeckJobsController');
    assert.equal(CONTROLLER_ROLE.permissions, CONTROLLER_PERMISSIONS);
  });

  it('holds nothing that could widen the controller: no IAM write, no actAs, no keys, no storage', () => {
    const widening = /setIamPolicy|actAs|getAccessToken|signBlob|signJwt|implicitDelegation|serviceAccountKeys|^iam\.roles\.|^iam\.serviceAccounts\.(create|delete|update|setIamPolicy|get)$|setServiceAccount|^storage\.|^resourcemanager\./;
    assert.deepEqual(CONTROLLER_PERMISSIONS.filter((p) => widening.test(p)), []);
    // No firewall write: IAM Conditions cannot narrow it, and it would open ports to any VM (this machine makes the jobs rule).
    assert.deepEqual(CONTROLLER_PERMISSIONS.filter((p) => /^compute\.(firewalls\.(create|update|delete)|networks\.updatePolicy)$/.test(p)), []);
    // Compute for the clusters, and the one IAM read the listing makes.
    assert.deepEqual(CONTROLLER_PERMISSIONS.filter((p) => !p.startsWith('compute.')), ['iam.serviceAccounts.list']);
    // Attaching an account needs actAs on it too, which the controller holds on its jobs account
    // only (jobsAccount.ts); setServiceAccount itself reaches job clusters' instances only.
    assert.deepEqual(JOB_CLUSTER_PERMISSIONS.filter((p) => widening.test(p)), ['compute.instances.setServiceAccount']);
  });

  it('every permission on an instance or disk is in skydeckJobClusters (bound under the name condition), none project-wide but the listing', () => {
    assert.deepEqual([...JOB_CLUSTER_PERMISSIONS], [...new Set(JOB_CLUSTER_PERMISSIONS)].sort());
    assert.equal(jobClustersRole('p-1'), 'projects/p-1/roles/skydeckJobClusters');
    assert.equal(JOB_CLUSTERS_ROLE.permissions, JOB_CLUSTER_PERMISSIONS);
    assert.deepEqual(JOB_CLUSTER_PERMISSIONS.filter((p) => !/^compute\.(instances|disks)\./.test(p)), []);
    assert.deepEqual(CONTROLLER_PERMISSIONS.filter((p) => /^compute\.(instances|disks)\./.test(p)), ['compute.instances.list']);
    for (const p of ['compute.instances.setMetadata', 'compute.instances.setServiceAccount', 'compute.instances.stop', 'compute.instances.delete', 'compute.instances.start', 'compute.instances.create']) {
      assert.ok(JOB_CLUSTER_PERMISSIONS.includes(p) && !CONTROLLER_PERMISSIONS.includes(p), p);
    }
  });

  it('the condition passes a job cluster\'s instance and boot disk by name, and nothing else', () => {
    const on = (type: string, name: string) => evaluateCondition(JOB_CLUSTERS_CONDITION.expression, { type: `compute.googleapis.com/${type}`, name });
    assert.equal(on('Instance', `projects/p/zones/us-central1-a/instances/${JOB_INSTANCE_PREFIX}train-1a2b3c4d-00ff`), true);
    assert.equal(on('Disk', `projects/p/zones/europe-west4-a/disks/${JOB_INSTANCE_PREFIX}train-1a2b3c4d-00ff`), true);
    assert.equal(on('Instance', 'projects/p/zones/us-central1-a/instances/web-1'), false);
    assert.equal(on('Instance', `projects/p/zones/us-central1-a/instances/sky-${JOB_INSTANCE_PREFIX}mine-1a2b3c4d-00ff`), false);
    assert.equal(on('Instance', 'projects/p/zones/us-central1-a/instances/skydeck-jobs-0a1b2c3d-1a2b3c4d-00ff'), false, 'the controller\'s own VM');
    assert.equal(on('Disk', 'projects/p/zones/us-central1-a/disks/web-1'), false);
    assert.equal(on('Firewall', `projects/p/global/firewalls/${JOB_INSTANCE_PREFIX}x`), false);
    assert.equal(evaluateCondition(JOB_CLUSTERS_CONDITION.expression, { type: 'cloudresourcemanager.googleapis.com/Project', name: 'projects/p' }), false);
  });

  it('instance names: the prefix for a controller\'s job clusters only, never otherwise; GCE\'s name rules either way', () => {
    const GCE = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
    const uid = '0f3a9c1e-aaaa-bbbb-cccc-1234567890ab';
    for (const cluster of ['train', 'x'.repeat(80), 'Skydeck-J-Mine', `${JOB_INSTANCE_PREFIX}mine`, 'skydeck-j', '12skydeck-j-a', 'skydeck_j_x', '--', 'skydeck-jobs-0a1b2c3d']) {
      const job = instanceName(cluster, uid, true);
      const other = instanceName(cluster, uid);
      for (const n of [job, other]) assert.ok(GCE.test(n) && n.length <= 63, `${cluster}: ${n}`);
      assert.ok(job.startsWith(JOB_INSTANCE_PREFIX), job);
      assert.ok(!other.startsWith(JOB_INSTANCE_PREFIX), other);
      assert.match(other, /-0f3a9c1e-[0-9a-f]{4}$/);
    }
  });

  it('the jobs account\'s id: its own prefix (not the job clusters\' instance prefix), 6–30 characters, told apart from the cluster\'s own', () => {
    assert.ok(!JOBS_ACCOUNT_PREFIX.startsWith(JOB_INSTANCE_PREFIX) && !JOB_INSTANCE_PREFIX.startsWith(JOBS_ACCOUNT_PREFIX));
    const ID = /^[a-z]([-a-z0-9]{4,28}[a-z0-9])$/; // IAM's accountId rule
    for (const uid of ['0f3a9c1e-aaaa-bbbb-cccc-1234567890ab', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF']) {
      const jobs = jobsAccountId(uid);
      const own = bucketAccountId(uid);
      for (const id of [jobs, own]) assert.ok(ID.test(id) && id.length === 30, id);
      assert.ok(jobs.startsWith(JOBS_ACCOUNT_PREFIX) && !jobs.startsWith(JOB_INSTANCE_PREFIX), jobs);
      const sa = (id: string) => ({ email: `${id}@p.iam.gserviceaccount.com`, description: `${TAG_UID}=${uid} ${TAG_WORKSPACE}=w`, displayName: 'Skydeck jobs of cluster c' });
      assert.equal(tagsOfAccount(sa(jobs))[TAG_UID], uid, 'the sweep recognises the jobs account');
      assert.equal(tagsOfAccount(sa(own))[TAG_UID], uid);
      assert.deepEqual(tagsOfAccount(sa(`skydeck-j-${jobs.slice(JOBS_ACCOUNT_PREFIX.length)}`)), {}, 'nor an account under the old prefix');
    }
  });
});

describe('the GCP fake\'s IAM condition evaluator (test support): what it does not know it refuses', () => {
  const r = { type: 'compute.googleapis.com/Instance', name: 'projects/p/zones/z/instances/skydeck-j-a' };
  it('throws on any other form instead of reading it as true or false', () => {
    for (const e of ['true', 'resource.name.endsWith("a")', 'resource.type != "compute.googleapis.com/Instance"', '!(resource.name.startsWith("x"))',
      'resource.name.extract("projects/{p}/zones/{z}/instances/{name}").startsWith("skydeck-j-")', 'resource.type == "x" && request.time < timestamp("2030-01-01T00:00:00Z")',
      'resource.name.startsWith("a") ||', '(resource.type == "x"']) {
      assert.throws(() => evaluateCondition(e, r), UnevaluableCondition, e);
    }
  });
  it('extract() takes the text after the template\'s prefix, up to its suffix; "" when absent', () => {
    const ok = (e: string, name: string) => evaluateCondition(e, { type: '', name });
    assert.equal(ok('resource.name.extract("/instances/{n}").startsWith("ab")', 'projects/p/zones/z/instances/abc'), true);
    assert.equal(ok('resource.name.extract("projects/{p}/").startsWith("p1")', 'projects/p1/zones/z'), true);
    assert.equal(ok('resource.name.extract("/instances/{n}").startsWith("")', 'projects/p/zones/z/disks/abc'), true, 'an empty prefix always starts');
    assert.equal(ok('resource.name.extract("/instances/{n}").startsWith("a")', 'projects/p/zones/z/disks/abc'), false);
    assert.equal(ok('(resource.type == "" && resource.name.startsWith("projects/")) || resource.type == "y"', 'projects/p'), true);
  });
});

describe('gcp controller machine types (named only)', () => {
  const q = (min: number, orMore = false): Quantity => ({ min, orMore });
  const shapes: ShapeRequest[] = [{ cpus: q(1, true) }, { cpus: q(2, true) }, { cpus: q(2) }, { memory: q(2, true) }, { cpus: q(1) }, { memory: q(4) }, {}];

  it('resolve by name in the price book: e2-small and t2a-standard-1 have a shipped price', () => {
    const book = new PriceBook(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-gcp-named-')));
    for (const [type, usd] of [['e2-small', 0.0168], ['t2a-standard-1', 0.0385]] as const) {
      const p = book.nodePrice({ cloud: 'gcp', region: 'us-central1', type, spot: false });
      assert.ok(isKnown(p), type);
      assert.equal(p.usdPerHour, usd);
      assert.deepEqual([book.row({ cloud: 'gcp', type })?.vcpus, book.row({ cloud: 'gcp', type })?.memoryGb], type === 'e2-small' ? [2, 2] : [1, 4]);
    }
  });

  it('are never picked for a shape, on demand or spot: the picks are what the shipped table alone gives', () => {
    for (const shape of shapes) {
      for (const useSpot of [false, true]) {
        const without = fittingTypes(GCP_SHIPPED.filter((t) => !t.namedOnly), { ...shape, useSpot }).map((t) => t.name);
        const picked = (() => {
          try {
            return pickMachine({ cloud: 'gcp', useSpot }, { cpus: shape.cpus, memory: shape.memory }).machineType;
          } catch {
            return undefined;
          }
        })();
        assert.equal(picked, without[0], JSON.stringify(shape));
        assert.ok(!['e2-small', 't2a-standard-1'].includes(picked ?? ''), JSON.stringify(shape));
      }
    }
  });

  it('stay named-only in a fetched catalog: the shipped row\'s mark comes with its price', () => {
    const fetched = withPrices([{ cloud: 'gcp', name: 'e2-small', vcpus: 2, memoryGb: 2, arch: 'x86_64' }, { cloud: 'gcp', name: 'e2-standard-2', vcpus: 2, memoryGb: 8, arch: 'x86_64' }], GCP_SHIPPED);
    assert.deepEqual(fetched.map((t) => [t.name, !!t.namedOnly, t.price !== undefined]), [['e2-small', true, true], ['e2-standard-2', false, true]]);
    assert.deepEqual(fittingTypes(fetched, { cpus: q(2, true) }).map((t) => t.name), ['e2-standard-2']);
  });

  it('would win a small shape on price if they were plain rows: why they are kept apart', () => {
    assert.equal(fittingTypes(GCP_SHIPPED.map((t) => ({ ...t, namedOnly: undefined })), { cpus: q(2, true) })[0].name, 'e2-small');
    assert.equal(fittingTypes(GCP_SHIPPED.map((t) => ({ ...t, namedOnly: undefined })), { cpus: q(1) })[0].name, 't2a-standard-1');
  });

  it('a zone lacking one reads as capacity (another zone may have it), an unknown name as config', () => {
    const missing = (type: string) => ({ httpStatusCode: 400, message: `Invalid value for field 'resource.machineType': 'zones/z/machineTypes/${type}'. Machine type with name '${type}' does not exist in zone 'us-east1-b'.` });
    assert.equal(classifyGcpError(missing('t2a-standard-1')), 'capacity');
    assert.equal(classifyGcpError(missing('e2-small')), 'capacity');
    assert.equal(classifyGcpError(missing('e2-smal')), 'config');
  });
});
