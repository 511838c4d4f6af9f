// The controller on one ssh pool host launches a job cluster on ANOTHER pool's host: it needs
// the pools' entries, key and host keys, copied only with --copy-credentials, and nothing else.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHosts, type TestHosts } from '../../hosts';
import { cliBundleCopy, runCli, type CliRun } from './remoteCli';

describe('a controller on an ssh host runs a job on another ssh pool (--copy-credentials)', function () {
  this.timeout(900_000);
  let env: TestHosts;
  let cli: string;
  let ws: string;
  let home: string;
  let vars: NodeJS.ProcessEnv;
  const jobs = (args: string[]): Promise<CliRun> => runCli(cli, ['jobs', ...args], vars, ws);

  before(async () => {
    env = await startHosts(2);
    cli = await cliBundleCopy();
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mjp-ws-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mjp-home-'));
    const [a, b] = env.hosts;
    const pools = path.join(ws, 'pools.yaml');
    fs.writeFileSync(pools, `ctl:\n  hosts: ["${a.user}@${a.address}:${a.port}"]\n  identity_file: ${env.clientKeyPath}\n` +
      `lab:\n  hosts: ["${b.user}@${b.address}:${b.port}"]\n  identity_file: ${env.clientKeyPath}\n`);
    fs.writeFileSync(path.join(ws, 'known_hosts'), env.hosts.map((h) => env.knownHostsLine(h)).join('\n') + '\n');
    vars = {
      ...process.env, SSH_AUTH_SOCK: '', SKYDECK_JOBS_CONTROLLER: 'ssh:ctl', SKYDECK_SSH_POOLS: pools,
      SKYDECK_KNOWN_HOSTS: path.join(ws, 'known_hosts'), SKYDECK_CONTROLLER_HOME: home,
      SKYDECK_CONTROLLER_POLL_MS: '200', SKYDECK_CONTROLLER_IDLE_S: '600', SKYDECK_CONFIG: path.join(ws, 'none.yaml'),
    };
  });
  after(async () => {
    await env?.stop();
    for (const d of [ws, home]) if (d) fs.rmSync(d, { recursive: true, force: true });
    if (cli) fs.rmSync(path.dirname(cli), { recursive: true, force: true });
  });

  it('copies only the pools, their key and host keys, and the job runs on the other host', async () => {
    const [a, b] = env.hosts;
    fs.writeFileSync(path.join(ws, 'p.yaml'), 'name: on-lab\nresources: {infra: ssh/lab}\nrun: |\n  sleep 3\n  echo "ran as $(id -un)"\n');
    const l = await jobs(['launch', 'p.yaml', '-y', '--copy-credentials']);
    assert.equal(l.code, 0, l.err);
    assert.match(l.err, /Copied 2 ssh pool entries and 1 key file\(s\) to the controller \(--copy-credentials\)/);
    assert.match(l.out, new RegExp(`ran as ${b.user}`), `${l.err}\n${(await a.exec("cat ~/.skydeck/jobs-controller/home/controller.log")).stdout}`);
    assert.match(l.err, /✓ Managed job 1 SUCCEEDED/);
    const access = '~/.skydeck/jobs-controller/access';
    assert.deepEqual((await a.exec(`ls -A ${access}`)).stdout.trim().split('\n').sort(), ['keys', 'known_hosts', 'ssh_pools.yaml']);
    assert.match((await a.exec(`stat -c %a ${access} ${access}/keys/*`)).stdout, /^700\n600\n$/);
    const copied = (await a.exec(`cat ${access}/ssh_pools.yaml`)).stdout;
    assert.ok(!copied.includes(env.clientKeyPath), 'the pools point at the copied key, not this machine\'s path');
  });
});
