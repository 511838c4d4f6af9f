// The plan in words (core/cost/planText.ts): the CodeLens summary, the modal's lines, the
// table rows and notes. "unknown" never 0; a shipped spot price is marked "~" and explained.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cheaperAlternatives, launchPlan, planDetail, planNotes, planRows, planSummary, PriceBook } from '../../../src/core/cost';
import { parseTaskText } from '../../../src/core/task';

const book = () => new PriceBook(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-plantext-')));
const taskOf = (yaml: string) => {
  const r = parseTaskText(yaml, 't.yaml');
  assert.ok(r.ok && r.tasks[0], JSON.stringify(r.diagnostics));
  return r.tasks[0];
};

describe('cost: the plan in words', () => {
  it('summary: chosen type, region, per node × nodes = total, and how many alternatives are cheaper', () => {
    const plan = launchPlan(taskOf('num_nodes: 2\nresources:\n  cloud: aws\n  accelerators: A10G:1\nrun: x\n'), book());
    assert.equal(planSummary(plan), 'g5.xlarge us-east-1 · $1.01/h ×2 = $2.01/h · cheapest of its options');
    const any = launchPlan(taskOf('resources:\n  any_of:\n    - cloud: aws\n      accelerators: V100:1\n    - cloud: gcp\n      accelerators: V100:1\nrun: x\n'), book());
    assert.equal(any.chosen?.instanceType, 'p3.2xlarge');
    const cheaper = cheaperAlternatives(any);
    assert.ok(cheaper.length >= 1 && cheaper.every((c) => c.cloud === 'gcp'), JSON.stringify(cheaper.map((c) => c.instanceType)));
    assert.equal(planSummary(any), `p3.2xlarge us-east-1 · $3.06/h · ${cheaper.length} cheaper alternative${cheaper.length === 1 ? '' : 's'}`);
  });

  it('spot on GCP: the shipped spot price, marked "~" in the summary, the rows and explained in the notes', () => {
    const plan = launchPlan(taskOf('resources:\n  cloud: gcp\n  accelerators: L4:1\n  use_spot: true\nrun: x\n'), book());
    assert.match(planSummary(plan), /^g2-standard-4 us-central1 spot · ~\$0\.28\/h · /);
    const row = planRows(plan)[0];
    assert.deepEqual(row, ['gcp', 'us-central1*', 'g2-standard-4', '4', '16', 'L4:1', '$0.71/h', '~$0.28/h', '~$0.28/h spot', '✔']);
    const notes = planNotes(plan).join('\n');
    assert.match(notes, /shipped spot table \(approximate\) \(\d{4}-\d\d-\d\d\)/);
    assert.match(notes, /~ spot price from Skydeck's shipped table/);
  });

  it('spot ranking with the shipped spot prices keeps a plain CPU request off previous-generation N1', () => {
    const plan = launchPlan(taskOf('resources:\n  cloud: gcp\n  cpus: 4\n  use_spot: true\nrun: x\n'), book());
    assert.equal(plan.chosen?.instanceType, 'e2-standard-4');
  });

  it('unknown prices read "unknown" everywhere, never $0', () => {
    const plan = launchPlan(taskOf('num_nodes: 3\nresources:\n  cloud: aws\n  instance_type: zz9.huge\nrun: x\n'), book());
    assert.equal(planSummary(plan), 'zz9.huge us-east-1 · unknown ×3 = unknown · no alternatives');
    assert.match(planDetail(plan), /^Launch picks: zz9\.huge · aws us-east-1\* · - · on-demand unknown, spot unknown per node ×3 = unknown$/m);
    assert.doesNotMatch(planDetail(plan) + planRows(plan).join(' '), /\$0/);
  });

  it('no cloud named (runs here) and ssh clusters: said, with the cheapest cloud for the first', () => {
    const local = launchPlan(taskOf('resources:\n  accelerators: T4:1\nrun: x\n'), book());
    assert.match(planSummary(local), /^no cloud named: launch runs it on this machine \(local\) · on a cloud from \$0\.\d\d\/h \(/);
    assert.match(planDetail(local), /^On a cloud:\n {2}/m);
    const ssh = launchPlan(taskOf('resources:\n  infra: ssh/pool\nrun: x\n'), book());
    assert.equal(planSummary(ssh), 'ssh: not billed through a cloud');
    assert.deepEqual(planRows(ssh), []);
  });

  it('a region given for the launch prices placements that name none there (not starred)', () => {
    const plan = launchPlan(taskOf('resources:\n  accelerators: T4:1\nrun: x\n'), book(), { cloud: 'azure', region: 'westeurope' });
    assert.equal(plan.chosen?.region, 'westeurope');
    assert.equal(plan.chosen?.regionAssumed, false);
  });
});

describe('cost: the GPU browser\'s choices', () => {
  it('one per accelerator and count, each cloud\'s cheapest on-demand and spot, "unknown" never 0', async () => {
    const { gpuChoices, gpuOffers } = await import('../../../src/core/cost');
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-gpus-'));
    const choices = gpuChoices(gpuOffers({}, new PriceBook(d), d));
    const t4 = choices.find((c) => c.value === 'T4:1');
    assert.ok(t4, choices.map((c) => c.value).join(' '));
    // AWS g4dn.xlarge $0.526, GCP n1-standard-4 + T4 $0.54, Azure NC4as_T4_v3 $0.526: the cheapest of each cloud.
    assert.equal(t4.onDemand, 'aws $0.53/h · azure $0.53/h · gcp $0.54/h');
    assert.equal(t4.spot, 'spot: aws unknown · azure ~$0.16/h · gcp ~$0.20/h');
    assert.equal(t4.memoryGb, 16);
    assert.equal(t4.cheapest, 0.526);
    for (let i = 1; i < choices.length; i++) {
      const [a, b] = [choices[i - 1], choices[i]];
      assert.ok(a.accelerator.localeCompare(b.accelerator) < 0 || (a.accelerator === b.accelerator && a.count < b.count), `by name, then count: ${a.value} before ${b.value}`);
    }
    assert.equal(new Set(choices.map((c) => c.value)).size, choices.length, 'one per accelerator and count');
    assert.doesNotMatch(choices.map((c) => c.onDemand + c.spot).join(' '), /\$0\.00/);
  });
});
