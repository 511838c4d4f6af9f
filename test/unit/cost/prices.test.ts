// Price computation: sources and dates, "unknown" never 0, per node and for num_nodes, spot,
// the running/stopped timeline from the events log, and the launch plan table.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeCatalog } from '../../../src/core/catalog';
import {
  billedTime, clusterRate, formatRate, isKnown, launchPlan, PriceBook, spendOf, sum, times, writeSpotCache, gpuOffers,
} from '../../../src/core/cost';
import { parseTaskText } from '../../../src/core/task';
import { thisCreator, type ClusterRecord, type EventRecord } from '../../../src/core/state';

const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cost-'));
const H = 3600_000;

function row(over: Partial<ClusterRecord> = {}, placement: Record<string, unknown> = {}): ClusterRecord {
  const c = thisCreator();
  return {
    name: 'c1', uid: randomUUID(), provider: 'aws', region: 'us-east-1', zone: null, status: 'UP', resources: null, num_nodes: 1,
    head_address: null, ssh_user: null, ssh_port: null, ssh_key_path: null,
    handle: JSON.stringify({ placement: { cloud: 'aws', region: 'us-east-1', useSpot: false, ...placement } }),
    launched_at: 1_000_000, updated_at: 1_000_000, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
    created_by_user: c.user, created_by_machine: c.machine, account: null, ...over,
  };
}

let nextId = 1;
const ev = (ts: number, kind: string, data?: unknown, message = ''): EventRecord => ({ id: nextId++, ts, cluster: 'c1', kind, message, data: data === undefined ? null : JSON.stringify(data) });

describe('cost: prices', () => {
  it('a shipped on-demand price carries its source and date; an unknown type is "unknown", not 0', () => {
    const book = new PriceBook(dir());
    const p = book.nodePrice({ cloud: 'aws', region: 'us-east-1', type: 'p3.2xlarge', spot: false });
    assert.ok(isKnown(p));
    assert.equal(p.usdPerHour, 3.06);
    assert.equal(p.source, 'shipped table');
    assert.match(p.asOf, /^\d{4}-\d\d-\d\d$/);
    const u = book.nodePrice({ cloud: 'aws', region: 'us-east-1', type: 'x9.nothing', spot: false });
    assert.ok(!isKnown(u));
    assert.equal(formatRate(u), 'unknown');
    assert.equal(formatRate(times(u, 4)), 'unknown');
    assert.ok(!isKnown(sum([p, u])), 'a sum with one unknown part is unknown');
  });

  it('spot: the cached DescribeSpotPriceHistory answer, else unknown naming why (never the on-demand price)', () => {
    const d = dir();
    const book = new PriceBook(d);
    const q = { cloud: 'aws', region: 'us-east-1', type: 'g5.xlarge', spot: true };
    const before = book.nodePrice(q);
    assert.ok(!isKnown(before));
    assert.match(before.unknown, /DescribeSpotPriceHistory/);
    writeSpotCache(d, 'us-east-1', { 'g5.xlarge': { usd: 0.4123, at: Date.parse('2026-12-01T10:00:00Z') } });
    const after = book.nodePrice(q);
    assert.ok(isKnown(after));
    assert.equal(after.usdPerHour, 0.4123);
    assert.equal(after.source, 'aws DescribeSpotPriceHistory');
    assert.equal(after.asOf, '2026-12-01');
    // Another region's answer is not this one's.
    assert.ok(!isKnown(book.nodePrice({ ...q, region: 'eu-west-1' })));
    // GCP publishes none Skydeck can fetch: a type outside the shipped table is unknown, said so.
    const g = book.nodePrice({ cloud: 'gcp', region: 'us-central1', type: 'c3-standard-4', spot: true });
    assert.ok(!isKnown(g));
    assert.match(g.unknown, /gcp publishes no spot price/);
  });

  it('GCP and Azure spot come from the shipped table, marked approximate in the source and in every formatted rate', () => {
    const book = new PriceBook(dir());
    for (const q of [
      { cloud: 'gcp', region: 'us-central1', type: 'g2-standard-4' },
      { cloud: 'gcp', region: 'us-central1', type: 'n1-standard-8', gpus: { name: 'T4', count: 1 } },
      { cloud: 'azure', region: 'eastus', type: 'standard_nc6s_v3' },
    ]) {
      const spot = book.nodePrice({ ...q, spot: true });
      const od = book.nodePrice({ ...q, spot: false });
      assert.ok(isKnown(spot) && isKnown(od), JSON.stringify(q));
      assert.ok(spot.usdPerHour > 0 && spot.usdPerHour < od.usdPerHour, `${q.type}: spot ${spot.usdPerHour} under on-demand ${od.usdPerHour}`);
      assert.equal(spot.source, 'shipped spot table (approximate)');
      assert.equal(spot.shippedSpot, true);
      assert.match(formatRate(spot), /^~\$\d/);
      assert.match(formatRate(times(spot, 3)), /^~\$/, 'a multiple keeps the mark');
      assert.match(formatRate(sum([od, spot])), /^~\$/, 'a sum with one shipped spot part keeps the mark');
      assert.doesNotMatch(formatRate(od), /~/, 'on-demand is not marked');
    }
    // N1 + T4: the machine and its GPU each at their spot price, so more than the bare machine's spot.
    const bare = book.nodePrice({ cloud: 'gcp', type: 'n1-standard-8', spot: true });
    const t4 = book.nodePrice({ cloud: 'gcp', type: 'n1-standard-8', gpus: { name: 'T4', count: 1 }, spot: true });
    assert.ok(isKnown(bare) && isKnown(t4) && t4.usdPerHour > bare.usdPerHour);
    // AWS keeps asking the API: no shipped AWS spot figure stands in for it.
    assert.ok(!isKnown(book.nodePrice({ cloud: 'aws', region: 'us-east-1', type: 'p3.2xlarge', spot: true })));
  });

  it('a spot cache file someone tampered with is ignored, not trusted', () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'aws-spot-us-east-1.json'), JSON.stringify({ fetchedAt: Date.now(), prices: { 'g5.xlarge': { usd: -5, at: 1 }, 'p3.2xlarge': { usd: 'NaN', at: 1 } } }));
    const book = new PriceBook(d);
    assert.ok(!isKnown(book.nodePrice({ cloud: 'aws', region: 'us-east-1', type: 'g5.xlarge', spot: true })));
    assert.ok(!isKnown(book.nodePrice({ cloud: 'aws', region: 'us-east-1', type: 'p3.2xlarge', spot: true })));
    fs.writeFileSync(path.join(d, 'aws-spot-us-east-1.json'), '{"fetchedAt": 1e400, "prices": ');
    assert.ok(!isKnown(book.nodePrice({ cloud: 'aws', region: 'us-east-1', type: 'g5.xlarge', spot: true })));
  });

  it('a fetched catalog that carries prices wins over the shipped table, dated by its fetch', () => {
    const d = dir();
    const at = Date.parse('2026-11-15T00:00:00Z');
    writeCatalog(path.join(d, 'aws-us-east-1.json'), 'aws', 'us-east-1', [{ cloud: 'aws', name: 'p3.2xlarge', vcpus: 8, memoryGb: 61, price: 2.5 }], Date.now());
    const p = new PriceBook(d, () => Date.now()).nodePrice({ cloud: 'aws', region: 'us-east-1', type: 'p3.2xlarge', spot: false });
    assert.ok(isKnown(p) && p.usdPerHour === 2.5 && p.source === 'aws catalog (fetched)', JSON.stringify(p));
    assert.ok(at < Date.now());
  });

  it('a tampered cached catalog price (string, negative, NaN) is not used: the shipped figure answers', () => {
    const d = dir();
    writeCatalog(path.join(d, 'gcp-us-central1.json'), 'gcp', 'us-central1', [
      { cloud: 'gcp', name: 'g2-standard-4', vcpus: 4, memoryGb: 16, price: 'free' as unknown as number, spotPrice: -1 },
      { cloud: 'gcp', name: 'e2-standard-4', vcpus: 4, memoryGb: 16, price: Number.NaN },
    ], Date.now());
    const book = new PriceBook(d);
    for (const [type, spot] of [['g2-standard-4', false], ['g2-standard-4', true], ['e2-standard-4', false]] as const) {
      const p = book.nodePrice({ cloud: 'gcp', region: 'us-central1', type, spot });
      assert.ok(isKnown(p) && p.source.startsWith('shipped'), `${type} spot=${spot}: ${JSON.stringify(p)}`);
    }
  });

  it('GCP N1 with attached T4s is priced as that row, not the bare machine', () => {
    const book = new PriceBook(dir());
    const bare = book.nodePrice({ cloud: 'gcp', type: 'n1-standard-8', spot: false });
    const t4 = book.nodePrice({ cloud: 'gcp', type: 'n1-standard-8', gpus: { name: 'T4', count: 1 }, spot: false });
    assert.ok(isKnown(bare) && isKnown(t4));
    assert.ok(Math.abs(t4.usdPerHour - bare.usdPerHour - 0.35) < 1e-9);
  });
});

describe('cost: a cluster', () => {
  it('rate per node and for num_nodes; stopped bills the disks only', () => {
    const r = clusterRate(row({ num_nodes: 3 }, { instanceType: 'p3.2xlarge', resources: { diskSize: 100 } }), new PriceBook(dir()));
    assert.ok(r.billed && isKnown(r.perNode) && isKnown(r.running) && isKnown(r.stopped));
    assert.equal(r.perNode.usdPerHour, 3.06);
    assert.ok(Math.abs(r.running.usdPerHour - 9.18) < 1e-9);
    assert.ok(Math.abs(r.stopped.usdPerHour - (3 * 100 * 0.08) / 730) < 1e-12);
    assert.equal(r.instanceType, 'p3.2xlarge');
    assert.equal(r.estimatedType, undefined);
  });

  it('no recorded type: the cheapest shipped fit of the shape, marked as an estimate', () => {
    const r = clusterRate(row({}, { resources: { accelerators: [{ name: 'V100', count: 1 }] } }), new PriceBook(dir()));
    assert.equal(r.instanceType, 'p3.2xlarge');
    assert.equal(r.estimatedType, true);
  });

  it('local and ssh clusters are not billed (shown as such, not as $0 of a cloud)', () => {
    const r = clusterRate(row({ provider: 'local', handle: null }), new PriceBook(dir()));
    assert.equal(r.billed, false);
    assert.deepEqual(spendOf(r, { runningMs: H, stoppedMs: 0 }), { spentUsd: 0 });
  });

  it('a spot cluster with no spot price has unknown spend, never 0', () => {
    const rate = clusterRate(row({}, { instanceType: 'g5.xlarge', useSpot: true }), new PriceBook(dir()));
    assert.ok(!isKnown(rate.running));
    const s = spendOf(rate, { runningMs: H, stoppedMs: 0 });
    assert.equal(s.spentUsd, undefined);
    assert.match(s.unknown!, /spot price of g5.xlarge/);
  });

  it('timeline: running from the intent, stopped between status events, ended by the end event; other uids skipped', () => {
    const r = row();
    const t0 = r.launched_at;
    const events = [
      ev(t0 - H, 'status', { uid: r.uid, from: 'UP', to: 'STOPPED' }), // an older incarnation's
      ev(t0 + 2 * H, 'status', { uid: r.uid, from: 'UP', to: 'STOPPED' }),
      ev(t0 + 2.5 * H, 'status', { uid: randomUUID(), from: 'STOPPED', to: 'UP' }), // another uid
      ev(t0 + 5 * H, 'status', { uid: r.uid, from: 'STOPPED', to: 'INIT' }),
      ev(t0 + 6 * H, 'ended', { uid: r.uid }),
      ev(t0 + 9 * H, 'status', { uid: r.uid, from: 'INIT', to: 'UP' }),
    ];
    const t = billedTime(events, r, t0 + 100 * H);
    assert.deepEqual(t, { runningMs: 3 * H, stoppedMs: 3 * H, endedAt: t0 + 6 * H });
    // Older logs: the loop's own kinds.
    const legacy = billedTime([ev(t0 + H, 'stopped'), ev(t0 + 3 * H, 'attempt', undefined, 'starting on aws/r1')], r, t0 + 4 * H);
    assert.deepEqual(legacy, { runningMs: 2 * H, stoppedMs: 2 * H });
    const spend = spendOf(clusterRate(row({}, { instanceType: 'p3.2xlarge', resources: { diskSize: 730 } }), new PriceBook(dir())), t);
    assert.ok(Math.abs(spend.spentUsd! - (3 * 3.06 + 3 * 0.08)) < 1e-9, String(spend.spentUsd));
  });
});

describe('cost: before launch', () => {
  const taskOf = (yaml: string) => {
    const r = parseTaskText(yaml, 't.yaml');
    assert.ok(r.ok && r.tasks[0], JSON.stringify(r.diagnostics));
    return r.tasks[0];
  };

  it('the chosen candidate is the first placement\'s cheapest fit, for num_nodes, with cheaper alternatives after', () => {
    const plan = launchPlan(taskOf('resources:\n  cloud: aws\n  accelerators: V100:1\nnum_nodes: 2\nrun: x\n'), new PriceBook(dir()));
    assert.equal(plan.chosen?.instanceType, 'p3.2xlarge');
    assert.equal(plan.chosen?.region, 'us-east-1');
    assert.equal(plan.chosen?.regionAssumed, true);
    assert.ok(isKnown(plan.chosen!.total) && Math.abs(plan.chosen!.total.usdPerHour - 6.12) < 1e-9);
    assert.ok(!isKnown(plan.chosen!.spotPrice), 'no spot answer cached: unknown');
    const any = launchPlan(taskOf('resources:\n  any_of:\n    - cloud: gcp\n      accelerators: V100:1\n    - cloud: azure\n      accelerators: V100:1\nrun: x\n'), new PriceBook(dir()));
    assert.equal(any.chosen?.cloud, 'gcp');
    assert.ok(any.alternatives.some((a) => a.cloud === 'azure' && a.instanceType === 'Standard_NC6s_v3'));
    const prices = any.alternatives.map((a) => (isKnown(a.total) ? a.total.usdPerHour : Infinity));
    assert.deepEqual(prices, [...prices].sort((a, b) => a - b), 'alternatives cheapest first');
  });

  it('a task naming no cloud runs locally: no choice, but each cloud\'s price shown', () => {
    const plan = launchPlan(taskOf('resources:\n  accelerators: A100:8\nrun: x\n'), new PriceBook(dir()));
    assert.equal(plan.chosen, undefined);
    assert.match(plan.notBilled!, /local/);
    assert.deepEqual([...new Set(plan.alternatives.map((a) => a.cloud))].sort(), ['aws', 'azure', 'gcp']);
  });

  it('an instance_type no table knows is listed with unknown prices', () => {
    const plan = launchPlan(taskOf('resources:\n  cloud: aws\n  instance_type: zz9.huge\nrun: x\n'), new PriceBook(dir()));
    assert.equal(plan.chosen?.instanceType, 'zz9.huge');
    assert.equal(formatRate(plan.chosen!.total), 'unknown');
  });

  it('GPU offers by name and count, per cloud', () => {
    const d = dir();
    const a100 = gpuOffers({ accelerator: 'a100:8' }, new PriceBook(d), d);
    assert.ok(a100.length >= 2);
    assert.ok(a100.every((o) => o.accelerator === 'A100' && o.count === 8));
    assert.deepEqual(gpuOffers({ accelerator: 'T4', cloud: 'azure' }, new PriceBook(d), d).map((o) => o.cloud).filter((c) => c !== 'azure'), []);
  });
});
