// The GCP managed-jobs controller's custom role (controllerRole.ts) and the controller's machine
// types (gcpShipped.ts, namedOnly): the role is the exact, sorted list and holds nothing that
// writes IAM or lends an account; the named-only types resolve by name and are never picked for
// a shape. What each provider call needs (and that actAs reaches the jobs account only) is checked against the fake in
// test/integration/gcp/jobsController.test.ts.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONTROLLER_PERMISSIONS, CONTROLLER_ROLE, controllerRole } from '../../../src/core/clouds/gcp/controllerRole';
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
    // Attaching an account needs actAs on it too, which the controller holds on its jobs account only (jobsAccount.ts).
    assert.deepEqual(CONTROLLER_PERMISSIONS.filter((p) => widening.test(p)), ['compute.instances.setServiceAccount']);
    // Compute for the clusters, and the one IAM read the listing makes.
    assert.deepEqual(CONTROLLER_PERMISSIONS.filter((p) => !p.startsWith('compute.')), ['iam.serviceAccounts.list']);
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
