// Where the controller lives (env over config file), which node runs its bundle, and the
// bundle's content hash.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readControllerSetting, parsePlace, cliBundle, controllerClusterName } from '../../../src/core/managed';
import { controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import { chooseNode, localUname, nodeMajor } from '../../../src/core/managed/remote/nodeChoice';

describe('managed-jobs controller setting', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cfg-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = () => path.join(dir, 'config.yaml');

  it('defaults to this machine with no copy of credentials', () => {
    const s = readControllerSetting({}, file());
    assert.deepEqual(s.place, { kind: 'this-machine' });
    assert.equal(s.copyCredentials, false);
  });

  it('reads jobs.controller and jobs.copy_credentials from the config; the env wins', () => {
    fs.writeFileSync(file(), 'jobs:\n  controller: ssh:lab\n  copy_credentials: true\n');
    assert.deepEqual(readControllerSetting({}, file()).place, { kind: 'ssh', pool: 'lab' });
    assert.equal(readControllerSetting({}, file()).copyCredentials, true);
    const s = readControllerSetting({ SKYDECK_JOBS_CONTROLLER: 'local-cluster', SKYDECK_JOBS_COPY_CREDENTIALS: '0' }, file());
    assert.deepEqual(s.place, { kind: 'local-cluster' });
    assert.equal(s.copyCredentials, false);
    assert.equal(s.source, 'SKYDECK_JOBS_CONTROLLER');
  });

  it('refuses what is not a place, naming the forms and where it came from', () => {
    for (const bad of ['ssh:', 'ssh:a b', 'ssh:$(id)', "ssh:x'y", 'amazon', 'ssh:lab\nx', 'aws:us-east-1', 'AWS']) {
      assert.equal(typeof parsePlace(bad), 'string', bad);
      assert.throws(() => readControllerSetting({ SKYDECK_JOBS_CONTROLLER: bad }, file()), /SKYDECK_JOBS_CONTROLLER: .*is not a controller place: use this-machine, local-cluster, ssh:<pool>, aws, gcp or azure \(each optionally \/<region>\)$/);
    }
    fs.writeFileSync(file(), 'jobs:\n  controller: 7\n');
    assert.throws(() => readControllerSetting({}, file()), /jobs\.controller: expected a string/);
    fs.writeFileSync(file(), 'jobs: [\n');
    assert.throws(() => readControllerSetting({}, file()), /not valid YAML/);
  });
});

describe('a cloud controller setting', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cfg-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = () => path.join(dir, 'config.yaml');

  it('reads aws and aws/<region>; each place names its own controller cluster, a t3.small with nothing to run', () => {
    assert.deepEqual(parsePlace('aws'), { kind: 'cloud', cloud: 'aws' });
    assert.deepEqual(parsePlace(' aws/us-west-2 '), { kind: 'cloud', cloud: 'aws', region: 'us-west-2' });
    assert.deepEqual(parsePlace('aws/us-gov-west-1'), { kind: 'cloud', cloud: 'aws', region: 'us-gov-west-1' });
    const me = { user: 'u', machine: 'm' };
    const names = ['aws', 'aws/us-west-2', 'aws/us-east-1'].map((v) => controllerClusterName(parsePlace(v) as never, me));
    assert.equal(new Set(names).size, 3);
    assert.notEqual(controllerClusterName({ kind: 'cloud', cloud: 'aws' }, me), controllerClusterName({ kind: 'local-cluster' }, me));
    assert.notEqual(controllerClusterName({ kind: 'cloud', cloud: 'aws' }, me), controllerClusterName({ kind: 'cloud', cloud: 'aws' }, { user: 'v', machine: 'm' }));
    assert.equal(controllerTaskText({ kind: 'cloud', cloud: 'aws', region: 'eu-west-1' }, 'x64'),
      'name: skydeck-jobs-controller\nresources: {infra: "aws/eu-west-1", instance_type: t3.small}\nrun: echo "Skydeck managed-jobs controller node"\n');
    assert.match(controllerTaskText({ kind: 'cloud', cloud: 'aws' }, 'x64'), /resources: \{infra: "aws", instance_type: t3\.small\}/);
    // Graviton for an arm64 machine: its node binary can run there.
    assert.match(controllerTaskText({ kind: 'cloud', cloud: 'aws' }, 'arm64'), /resources: \{infra: "aws", instance_type: t4g\.small\}/);
  });

  it('reads gcp and azure places with their own region names and instance types', () => {
    assert.deepEqual(parsePlace('gcp'), { kind: 'cloud', cloud: 'gcp' });
    assert.deepEqual(parsePlace('gcp/europe-west4'), { kind: 'cloud', cloud: 'gcp', region: 'europe-west4' });
    assert.deepEqual(parsePlace('azure/eastus2'), { kind: 'cloud', cloud: 'azure', region: 'eastus2' });
    fs.writeFileSync(file(), 'jobs:\n  controller: azure/westeurope\n');
    assert.deepEqual(readControllerSetting({}, file()).place, { kind: 'cloud', cloud: 'azure', region: 'westeurope' });
    assert.match(controllerTaskText({ kind: 'cloud', cloud: 'gcp', region: 'us-central1' }, 'x64'), /resources: \{infra: "gcp\/us-central1", instance_type: e2-small\}/);
    assert.match(controllerTaskText({ kind: 'cloud', cloud: 'azure' }, 'x64'), /resources: \{infra: "azure", instance_type: Standard_B2s\}/);
    assert.match(controllerTaskText({ kind: 'cloud', cloud: 'gcp' }, 'arm64'), /instance_type: t2a-standard-1\}/);
    const me = { user: 'u', machine: 'm' };
    assert.equal(new Set(['aws', 'gcp', 'azure', 'gcp/us-east1'].map((v) => controllerClusterName(parsePlace(v) as never, me))).size, 4);
  });

  it('refuses bad regions and clouds without a controller identity, saying why', () => {
    for (const bad of ['aws/', 'aws/US-EAST-1', 'aws/us-east-1;id', 'aws/us-east-1/x', 'aws/$(id)', 'aws/us-east-1\nx']) {
      assert.throws(() => readControllerSetting({ SKYDECK_JOBS_CONTROLLER: bad }, file()), /SKYDECK_JOBS_CONTROLLER: ".*": ".*" is not an AWS region name \(such as us-east-1\); use this-machine, local-cluster, ssh:<pool>, aws, gcp or azure \(each optionally \/<region>\)$/, JSON.stringify(bad));
    }
    for (const [bad, name] of [['gcp/US-CENTRAL1', 'a GCP region name \\(such as us-central1\\)'], ['gcp/us-central1;x', 'a GCP'], ['azure/east us', 'an Azure region name \\(such as eastus\\)'], ['azure/$(id)', 'an Azure'], ['gcp/', 'a GCP']]) {
      assert.throws(() => readControllerSetting({ SKYDECK_JOBS_CONTROLLER: bad }, file()), new RegExp(`is not ${name}`), bad);
    }
    assert.throws(() => readControllerSetting({ SKYDECK_JOBS_CONTROLLER: 'kubernetes' }, file()), /on kubernetes is not available: a controller pod is not built yet/);
  });

  it('takes the idle minutes in whole minutes (env over file, default 10), refusing anything else', () => {
    assert.equal(readControllerSetting({ SKYDECK_JOBS_CONTROLLER: 'aws' }, file()).idleMinutes, 10);
    fs.writeFileSync(file(), 'jobs:\n  controller: aws\n  controller_idle_minutes: 30\n');
    assert.equal(readControllerSetting({}, file()).idleMinutes, 30);
    assert.equal(readControllerSetting({ SKYDECK_JOBS_CONTROLLER_IDLE_MINUTES: '2' }, file()).idleMinutes, 2);
    for (const bad of ['0', '0.5', '-1', 'ten', '', '525601']) {
      assert.throws(() => readControllerSetting({ SKYDECK_JOBS_CONTROLLER_IDLE_MINUTES: bad }, file()),
        /^Error: SKYDECK_JOBS_CONTROLLER_IDLE_MINUTES: expected whole minutes from 1 to 525600 \(got ".*"\)$/, bad);
    }
    fs.writeFileSync(file(), 'jobs:\n  controller_idle_minutes: 1.5\n');
    assert.throws(() => readControllerSetting({}, file()), /jobs\.controller_idle_minutes: expected whole minutes from 1 to 525600 \(got 1\.5\)/);
  });
});

describe('the node that runs the controller bundle', () => {
  const here = { uname: 'Linux x86_64', version: 'v20.11.0' };

  it("uses the node's own node 20+, else uploads this machine's when the platform matches", () => {
    assert.deepEqual(chooseNode({ uname: 'Linux x86_64', nodePath: '/usr/bin/node', nodeVersion: 'v22.1.0', uploaded: false }, here), { use: 'node', path: '/usr/bin/node' });
    assert.deepEqual(chooseNode({ uname: 'Linux x86_64', nodePath: '/usr/bin/node', nodeVersion: 'v18.19.0', uploaded: false }, here), { use: 'upload' });
    assert.deepEqual(chooseNode({ uname: 'Linux x86_64', uploaded: true }, here), { use: 'uploaded' });
    assert.deepEqual(chooseNode({ uname: 'Linux x86_64', nodePath: '/usr/bin/node', nodeVersion: 'v22.1.0', uploaded: false }, here, 'upload'), { use: 'upload' });
  });

  it('names what to install when neither works', () => {
    const c = chooseNode({ uname: 'Linux aarch64', nodePath: '/usr/bin/node', nodeVersion: 'v16.0.0', uploaded: false }, here);
    assert.equal(c.use, 'none');
    assert.match((c as { why: string }).why, /Linux aarch64\) has node v16\.0\.0 at \/usr\/bin\/node; it needs Node\.js 20 or newer.*built for Linux x86_64/);
    const none = chooseNode({ uname: 'Linux aarch64', uploaded: false }, here);
    assert.match((none as { why: string }).why, /has no node/);
  });

  it('speaks uname and node versions', () => {
    assert.equal(localUname('linux', 'x64'), 'Linux x86_64');
    assert.equal(localUname('linux', 'arm64'), 'Linux aarch64');
    assert.equal(localUname('darwin', 'arm64'), 'Darwin arm64');
    assert.equal(nodeMajor('v20.3.1\n'), 20);
    assert.equal(nodeMajor('garbage'), undefined);
  });
});

describe('the CLI bundle shipped to a controller', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bundle-'));
    fs.writeFileSync(path.join(dir, 'cli.js'), 'console.log(1)\n');
    fs.writeFileSync(path.join(dir, 'sql-wasm.wasm'), 'wasm');
    fs.mkdirSync(path.join(dir, 'agent', '__pycache__'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'agent', 'a.py'), 'x = 1\n');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('hashes every part; any byte changes the directory name, caches do not', () => {
    const a = cliBundle(path.join(dir, 'cli.js'));
    assert.match(a.hash, /^[0-9a-f]{16}$/);
    assert.deepEqual(a.parts, ['cli.js', 'sql-wasm.wasm', 'agent']);
    fs.writeFileSync(path.join(dir, 'agent', '__pycache__', 'a.pyc'), 'cache');
    assert.equal(cliBundle(path.join(dir, 'cli.js')).hash, a.hash);
    fs.writeFileSync(path.join(dir, 'agent', 'a.py'), 'x = 2\n');
    assert.notEqual(cliBundle(path.join(dir, 'cli.js')).hash, a.hash);
  });

  it('refuses a bundle missing a part, or an entry that is not a built .js', () => {
    fs.rmSync(path.join(dir, 'sql-wasm.wasm'));
    assert.throws(() => cliBundle(path.join(dir, 'cli.js')), /lacks sql-wasm\.wasm: rebuild it/);
    assert.throws(() => cliBundle(path.join(dir, 'main.ts')), /build it with "npm run build"/);
  });
});
