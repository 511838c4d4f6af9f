// Every list the provider reads is paged by ARM ({value, nextLink}); the fake answers two items
// a page here, so a reader of the first page only misses VMs, NICs, IPs, rules, groups or SKUs.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TAG_UID, tagsFor } from '../../../src/core/clouds/provider';
import { checkAzure, groupName } from '../../../src/core/clouds/azure';
import { AzureClients } from '../../../src/core/clouds/azure/clients';
import { startAzureBed, runRequest, REGION, type AzureBed } from './helpers';

describe('azure: lists longer than a page (nextLink followed everywhere)', function () {
  this.timeout(60_000);
  let bed: AzureBed;
  before(async function () {
    bed = await startAzureBed(this);
    bed.fake.pageSize = 2;
  });
  after(async () => bed?.close());

  const sub = () => bed.fake.model.subscription;
  const putGroup = (name: string, tags: Record<string, string>) => bed.fake.model.put({
    id: `/subscriptions/${sub()}/resourceGroups/${name}`, name, type: 'Microsoft.Resources/resourceGroups', location: REGION, tags, properties: { provisioningState: 'Succeeded' },
  });

  it('the fake pages: nextLink while more remain, none on the last page; a tag filter drops the tags', async () => {
    for (let i = 0; i < 5; i++) putGroup(`paging-${i}`, { team: 'x' });
    const c = new AzureClients(bed.options());
    const pages: number[] = [];
    let last: string | undefined = 'x';
    for await (const pg of c.resources.resourceGroups.list().byPage()) {
      pages.push(pg.length);
      last = (pg as { continuationToken?: string }).continuationToken;
    }
    assert.ok(pages.length >= 3 && pages.every((n) => n <= 2), `pages of at most two: ${pages}`);
    assert.equal(last, undefined, 'the last page has no nextLink');
    const filtered = [];
    for await (const g of c.resources.resourceGroups.list({ filter: "tagName eq 'team' and tagValue eq 'x'" })) filtered.push(g);
    assert.equal(filtered.length, 5);
    assert.ok(filtered.every((g) => g.tags === undefined), 'tags are not returned under a tag filter');
    for (let i = 0; i < 5; i++) bed.fake.model.remove(`/subscriptions/${sub()}/resourceGroups/paging-${i}`);
  });

  it('a three-VM cluster: query, cluster info (NICs, IPs), ports (rules) and a partial terminate see every page', async () => {
    const p = bed.provider();
    const req = runRequest({ numNodes: 3 });
    const ref = { uid: req.uid, region: REGION };
    const run = await p.runInstances(req);
    const q = await p.queryInstances(ref);
    assert.deepEqual(q.map((i) => i.id).sort(), [...run.created].sort());
    assert.ok(q.every((i) => i.status === 'running'));
    const info = await p.clusterInfo(ref);
    assert.equal(info.workers.length, 2);
    for (const n of [info.head, ...info.workers]) assert.match(n.address, /^198\.51\.100\.\d+$/, `${n.id} has its public IP`);

    await p.openPorts(ref, [{ from: 8000, to: 8000 }, { from: 8001, to: 8001 }, { from: 8002, to: 8002 }]);
    const rulePuts = () => bed.fake.model.calls.filter((x) => x.method === 'PUT' && /securityRules\//.test(x.path)).length;
    const before = rulePuts();
    await p.openPorts(ref, [{ from: 8002, to: 8002 }, { from: 8000, to: 8000 }]);
    assert.equal(rulePuts(), before, 'rules on the second page are seen as open');

    // Two of three ids: not the whole cluster (the third VM is on the second page).
    const [a, b, third] = run.created;
    await p.terminateInstances(ref, [a, b]);
    assert.equal(await p.groupExists(req.uid), true, 'the group is not deleted for two of three VMs');
    for (let i = 0; i < 200 && (await p.queryInstances(ref)).length > 1; i++) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual((await p.queryInstances(ref)).map((i) => i.id), [third]);
    await p.terminateInstances(ref);
    await p.waitInstances(ref, 'terminated', 5000);
  });

  it('the leak listing finds every tagged VM and every leaked empty Skydeck group past the first page', async () => {
    const p = bed.provider();
    const reqs = [runRequest(), runRequest(), runRequest()];
    for (const r of reqs) await p.runInstances(r);
    const leaked = [randomUUID(), randomUUID(), randomUUID()];
    for (const uid of leaked) putGroup(groupName(uid), tagsFor({ clusterName: 'gone', uid, workspaceId: 'ws-test' }));
    putGroup('theirs-1', {});
    putGroup('theirs-2', { team: 'y' });
    const listing = await p.listTagged();
    const uids = new Set(listing.instances.map((i) => i.tags[TAG_UID]));
    for (const r of reqs) assert.ok(uids.has(r.uid), `VM of ${r.uid} listed`);
    for (const uid of leaked) {
      const g = listing.instances.find((i) => i.id === groupName(uid));
      assert.deepEqual([g?.status, g?.tags[TAG_UID]], ['stopped', uid], `empty group of ${uid} listed with its uid`);
    }
    assert.ok(!listing.instances.some((i) => i.id.startsWith('theirs')));
    for (const uid of [...reqs.map((r) => r.uid), ...leaked]) await p.terminateInstances({ uid });
    for (const g of ['theirs-1', 'theirs-2']) bed.fake.model.remove(`/subscriptions/${sub()}/resourceGroups/${g}`);
  });

  it('the SKU catalog and the credential check read every page', async () => {
    const cat = await bed.provider({ catalogDir: `${bed.dir}/paged-catalog` }).catalog(REGION);
    assert.deepEqual(cat.map((t) => t.name).sort(),
      ['Standard_D2s_v5', 'Standard_D4ps_v5', 'Standard_D4s_v5', 'Standard_D8s_v5', 'Standard_NC24ads_A100_v4', 'Standard_NC4as_T4_v3']);
    for (let i = 0; i < 5; i++) putGroup(`count-${i}`, {});
    const allGroups = () => [...bed.fake.model.resources.values()].filter((r) => r.type === 'Microsoft.Resources/resourceGroups');
    // Groups of the suites above are still being deleted; count once they are gone.
    for (let i = 0; i < 200 && allGroups().some((g) => g.properties.provisioningState === 'Deleting'); i++) await new Promise((r) => setTimeout(r, 25));
    const groups = allGroups().length;
    assert.ok(groups >= 5);
    const r = await checkAzure(bed.options());
    assert.ok(r.ok);
    assert.equal(r.ok && r.details.resourceGroups, groups);
  });
});
