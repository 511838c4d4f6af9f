// The fake's answers on the wire, as ARM's common types define them (azure-rest-api-specs
// common-types/resource-management types.json ErrorResponse: {error: {code, message, target?,
// details?, additionalInfo?}}) and as the long-running-operation protocol the SDK polls:
// Azure-AsyncOperation status bodies, and Location polls that answer 202 + Location until done.
import * as assert from 'node:assert/strict';
import * as https from 'node:https';
import { groupName } from '../../../src/core/clouds/azure';
import { startAzureBed, runRequest, REGION, type AzureBed } from './helpers';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('azure fake: error bodies and long-running operations as ARM sends them', function () {
  this.timeout(30_000);
  let bed: AzureBed;
  before(async function () {
    bed = await startAzureBed(this);
  });
  after(async () => {
    bed.fake.model.allocationFails.clear();
    await bed?.close();
  });

  const call = (method: string, url: string, body?: string, auth = true): Promise<Answer> => new Promise((resolve, reject) => {
    const req = https.request(url.startsWith('https:') ? url : `${bed.fake.endpoint}${url}`, {
      method, ca: bed.ca, headers: { ...(auth ? { authorization: 'Bearer fake-token' } : {}), 'content-type': 'application/json' },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
  const armError = (a: Answer, status: number, code: string) => {
    assert.equal(a.status, status);
    assert.deepEqual(Object.keys(a.body), ['error'], 'only "error" at the top');
    assert.equal(a.body.error.code, code);
    assert.equal(typeof a.body.error.message, 'string');
    for (const k of Object.keys(a.body.error)) assert.ok(['code', 'message', 'target', 'details', 'additionalInfo'].includes(k), `error.${k} is not in ErrorResponse`);
  };
  const base = () => `/subscriptions/${bed.fake.model.subscription}`;
  const poll = async (url: string, done: (a: Answer) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const a = await call('GET', url);
      if (done(a)) return a;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`${url} never finished`);
  };

  it('errors have the ErrorResponse shape: not found, group not found, no token, unreadable body', async () => {
    armError(await call('GET', `${base()}/resourceGroups/nope/providers/Microsoft.Compute/virtualMachines?api-version=2024-07-01`), 404, 'ResourceGroupNotFound');
    const req = runRequest();
    await bed.provider().runInstances(req);
    const g = `${base()}/resourceGroups/${groupName(req.uid)}`;
    armError(await call('GET', `${g}/providers/Microsoft.Compute/virtualMachines/missing?api-version=2024-07-01`), 404, 'ResourceNotFound');
    armError(await call('GET', `${g}?api-version=2021-04-01`, undefined, false), 401, 'AuthenticationFailed');
    armError(await call('PUT', `${g}/providers/Microsoft.Network/publicIPAddresses/x?api-version=2024-05-01`, '{"location":'), 400, 'InvalidRequestContent');
  });

  it('a create: 201 + Azure-AsyncOperation, whose status body goes InProgress → Succeeded; a failed one carries the error', async () => {
    const req = runRequest();
    const p = bed.provider();
    await p.runInstances(req);
    const g = `${base()}/resourceGroups/${groupName(req.uid)}`;
    const nic = (await call('GET', `${g}/providers/Microsoft.Network/networkInterfaces?api-version=2024-05-01`)).body.value[0].id;
    const vmBody = (name: string) => JSON.stringify({
      location: REGION, properties: {
        hardwareProfile: { vmSize: 'Standard_D2s_v5' }, storageProfile: { imageReference: { publisher: 'Canonical', offer: '0001-com-ubuntu-server-jammy', sku: '22_04-lts-gen2', version: 'latest' } },
        networkProfile: { networkInterfaces: [{ id: nic }] }, osProfile: { computerName: name, adminUsername: 'skydeck' },
      },
    });
    const put = await call('PUT', `${g}/providers/Microsoft.Compute/virtualMachines/raw1?api-version=2024-07-01`, vmBody('raw1'));
    assert.equal(put.status, 201);
    assert.equal(put.body.properties.provisioningState, 'Creating');
    const op = String(put.headers['azure-asyncoperation']);
    assert.match(op, /^https:\/\/127\.0\.0\.1:\d+\/subscriptions\/.+\/operations\/[0-9a-f-]+\?api-version=/);
    const first = await call('GET', op);
    assert.deepEqual([first.status, first.body.status], [200, 'InProgress']);
    assert.ok(first.body.name && first.body.startTime, 'name and startTime');
    const end = await poll(op, (a) => a.body.status !== 'InProgress');
    assert.equal(end.body.status, 'Succeeded');
    assert.ok(end.body.endTime);

    bed.fake.model.allocationFails.add(REGION);
    const put2 = await call('PUT', `${g}/providers/Microsoft.Compute/virtualMachines/raw2?api-version=2024-07-01`, vmBody('raw2'));
    const failed = await poll(String(put2.headers['azure-asyncoperation']), (a) => a.body.status !== 'InProgress');
    bed.fake.model.allocationFails.clear();
    assert.equal(failed.body.status, 'Failed');
    assert.deepEqual(Object.keys(failed.body.error).sort(), ['code', 'message']);
    assert.equal(failed.body.error.code, 'AllocationFailed');
    await p.terminateInstances({ uid: req.uid });
  });

  it('a delete: 202 + Location (and Azure-AsyncOperation); the Location answers 202 + Location until done, then 200', async () => {
    const req = runRequest();
    const p = bed.provider();
    const [id] = (await p.runInstances(req)).created;
    const del = await call('DELETE', `${base()}/resourceGroups/${groupName(req.uid)}/providers/Microsoft.Compute/virtualMachines/${id}?api-version=2024-07-01`);
    assert.equal(del.status, 202);
    assert.ok(del.headers['azure-asyncoperation']);
    const loc = String(del.headers.location);
    const first = await call('GET', loc);
    assert.equal(first.status, 202);
    assert.ok(first.headers.location, 'a Location poll in progress says where to poll next');
    const end = await poll(loc, (a) => a.status !== 202);
    assert.equal(end.status, 200);
    const g = await call('DELETE', `${base()}/resourceGroups/${groupName(req.uid)}?api-version=2021-04-01`);
    assert.equal(g.status, 202);
    assert.equal((await poll(String(g.headers.location), (a) => a.status !== 202)).status, 200);
    armError(await call('GET', `${base()}/resourceGroups/${groupName(req.uid)}?api-version=2021-04-01`), 404, 'ResourceGroupNotFound');
  });
});
