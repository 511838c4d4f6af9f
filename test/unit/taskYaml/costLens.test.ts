// The cost CodeLens on `resources:` (costText.ts costLens) and Launch's question (support/
// launchConfirmText.ts): the same plan as the hover and `launch --dryrun`, in one line and
// in a modal's words. "unknown" never 0.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchPlan, planSummary, PriceBook } from '../../../src/core/cost';
import { parseTaskText } from '../../../src/core/task';
import { costLens } from '../../../src/ui/taskYaml/costText';
import { launchQuestion } from '../../../src/ui/commands/support/launchConfirmText';

const book = () => new PriceBook(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-lens-')));
const taskOf = (yaml: string) => {
  const r = parseTaskText(yaml, 't.yaml');
  assert.ok(r.ok && r.tasks[0], JSON.stringify(r.diagnostics));
  return r.tasks[0];
};

describe('task YAML: cost CodeLens on resources:', () => {
  it('sits on the resources: line with the plan summary', () => {
    const text = 'name: t\nnum_nodes: 2\n\nresources:\n  cloud: aws\n  accelerators: A10G:1\nrun: x\n';
    const b = book();
    const lens = costLens(text, b);
    assert.deepEqual(lens, { line: 3, title: 'g5.xlarge us-east-1 · $1.01/h ×2 = $2.01/h · cheapest of its options' });
    assert.equal(lens?.title, planSummary(launchPlan(taskOf(text), b)), 'the same function as the plan');
  });

  it('none without a top-level resources: key or when the task does not parse', () => {
    assert.equal(costLens('run: |\n  resources: x\n', book()), undefined);
    assert.equal(costLens('resources:\n  cpus: [\n', book()), undefined);
  });
});

describe('Launch: the question before a launch', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-q-'));

  it('a new cloud cluster: the plan (choice, alternatives, sources) and the rate in the message', () => {
    const q = launchQuestion(taskOf('num_nodes: 2\nresources:\n  cloud: gcp\n  accelerators: L4:1\nrun: x\n'), dir, 'Launch t.yaml on c1', { isNew: true });
    assert.ok(q);
    assert.equal(q.action, 'Launch');
    assert.equal(q.message, 'Launch t.yaml on c1? It bills about $1.42/h while up.');
    assert.match(q.detail, /^A new gcp cluster of 2 nodes\.\nLaunch picks: g2-standard-4 · gcp us-central1\* · L4:1 · on-demand \$0\.71\/h, spot ~\$0\.28\/h per node ×2 = \$1\.42\/h$/m);
    assert.match(q.detail, /^Cheapest alternatives:\n {2}g2-standard-8 /m);
    assert.match(q.detail, /Prices: shipped table \(\d{4}-\d\d-\d\d\); shipped spot table \(approximate\)/);
  });

  it('a task naming no cloud, launched on the cloud picked for it, in the region picked', () => {
    const q = launchQuestion(taskOf('resources:\n  accelerators: T4:1\n  use_spot: true\nrun: x\n'), dir, 'Launch', { isNew: true, where: { cloud: 'azure', region: 'westus2' } });
    assert.ok(q?.plan?.chosen);
    assert.equal(q.plan.chosen.cloud, 'azure');
    assert.equal(q.plan.chosen.region, 'westus2');
    assert.match(q.message, /bills about ~\$0\.16\/h \(spot\)/);
  });

  it('an existing cluster or a local launch with nothing to upload: no question; uploads alone: the upload question', () => {
    assert.equal(launchQuestion(taskOf('resources:\n  cloud: aws\nrun: x\n'), dir, 'Launch', { isNew: false }), undefined);
    assert.equal(launchQuestion(taskOf('run: x\n'), dir, 'Launch', { isNew: true }), undefined);
    const up = launchQuestion(taskOf('workdir: .\nrun: x\n'), dir, 'Launch t.yaml on c1', { isNew: true });
    assert.ok(up);
    assert.equal(up.action, 'Go on');
    assert.equal(up.plan, undefined);
    assert.ok(up.detail.includes(`workdir ${dir} → ~/sky_workdir`), up.detail);
  });

  it('an unknown type says "unknown", never $0', () => {
    const q = launchQuestion(taskOf('resources:\n  cloud: aws\n  instance_type: zz9.huge\nrun: x\n'), dir, 'Launch', { isNew: true });
    assert.equal(q?.message, 'Launch? Its price per hour is unknown on this machine.');
    assert.doesNotMatch(q!.detail, /\$0/);
  });
});
