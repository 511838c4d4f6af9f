import assert from 'node:assert/strict';
import { containerImageOf, containerNameOf } from '../../../src/core/containers/image';
import { authStdin, redactAuth, registryAuthOf } from '../../../src/core/containers/registryAuth';
import { ContainerTransport } from '../../../src/core/containers/containerTransport';
import { shellCommand } from '../../../src/core/transport/sshShell';
import type { ExecOptions, Transport } from '../../../src/core/transport';

describe('containers: image_id docker:…', () => {
  it('takes SkyPilot\'s docker: references and leaves machine images alone', () => {
    assert.deepEqual(containerImageOf('docker:ubuntu:22.04'), { image: 'docker.io/library/ubuntu:22.04' }, 'Hub names spelled out');
    assert.deepEqual(containerImageOf('docker:vllm/vllm-openai:latest'), { image: 'docker.io/vllm/vllm-openai:latest' });
    assert.deepEqual(containerImageOf('docker:localhost/skydeck-test:1'), { image: 'localhost/skydeck-test:1' });
    assert.deepEqual(containerImageOf('docker:nvcr.io/nvidia/pytorch:24.01-py3'), { image: 'nvcr.io/nvidia/pytorch:24.01-py3' });
    assert.deepEqual(containerImageOf('docker:localhost:5000/a/b'), { image: 'localhost:5000/a/b' });
    assert.deepEqual(containerImageOf(`docker:img@sha256:${'a'.repeat(64)}`), { image: `docker.io/library/img@sha256:${'a'.repeat(64)}` });
    assert.equal(containerImageOf('ami-0123456789'), undefined);
    assert.equal(containerImageOf({ 'us-east-1': 'docker:x' }), undefined);
    assert.equal(containerImageOf(undefined), undefined);
  });

  it('refuses what is not a reference: shell syntax, flags, spaces, upper case, newlines, huge', () => {
    for (const bad of ['docker:', 'docker:$(id)', 'docker:a;b', 'docker:--privileged', 'docker:a b', 'docker:Ubuntu', 'docker:a\nb', `docker:${'a'.repeat(300)}`, "docker:a'b"]) {
      const r = containerImageOf(bad);
      assert.ok(r && 'problem' in r, bad);
      assert.match(r.problem, /^image_id: /);
      assert.ok(r.problem.length < 400);
    }
  });

  it('names the container by the uid only', () => {
    assert.equal(containerNameOf('2222a1de-b6da-4ba9-85a6-17da4fa5dfeb'), 'skydeck-2222a1de-b6da-4ba9-85a6-17da4fa5dfeb');
    assert.equal(containerNameOf('x;$(id)'), 'skydeck-xid');
  });
});

describe('containers: registry login', () => {
  it('reads SKYPILOT_DOCKER_* from the task first, then the environment; all three or none', () => {
    const env = { SKYPILOT_DOCKER_USERNAME: 'u', SKYPILOT_DOCKER_PASSWORD: 'p', SKYPILOT_DOCKER_SERVER: 's' };
    assert.deepEqual(registryAuthOf({}, env), { server: 's', username: 'u', password: 'p' });
    assert.deepEqual(registryAuthOf({ SKYPILOT_DOCKER_PASSWORD: 'q' }, env), { server: 's', username: 'u', password: 'q' });
    assert.equal(registryAuthOf({}, { SKYPILOT_DOCKER_USERNAME: 'u' }), undefined);
  });

  it('sends three lines on stdin, refuses a newline in a value, and redacts the password', () => {
    const a = { server: 's', username: 'u', password: 'hunter2' };
    assert.equal(authStdin(a), 's\nu\nhunter2\n');
    assert.equal(authStdin(undefined), '');
    assert.throws(() => authStdin({ ...a, password: 'x\ny' }), /newlines/);
    const b64 = Buffer.from('u:hunter2').toString('base64');
    assert.equal(redactAuth(`bad hunter2 and ${b64}`, a), 'bad <redacted> and <redacted>');
  });
});

describe('containers: the transport into a container', () => {
  const calls: { argv: string[]; opts?: ExecOptions }[] = [];
  const host = {
    description: 'ssh u@h:22',
    exec: async (argv: string[], opts?: ExecOptions) => { calls.push({ argv, opts }); return { code: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) }; },
  } as unknown as Transport;
  const t = new ContainerTransport(host, { runtime: 'podman', name: 'skydeck-u1', image: 'i' });

  it('wraps argv in <runtime> exec -i, passes env values by name only and cwd inside', async () => {
    calls.length = 0;
    await t.exec(['echo', "it's"], { env: { TOKEN: 'v$(x)' }, cwd: '~/w d' });
    const { argv, opts } = calls[0];
    assert.deepEqual(argv.slice(0, 6), ['podman', 'exec', '-i', '-e', 'TOKEN', 'skydeck-u1']);
    assert.ok(!argv.join(' ').includes('v$(x)'), 'the value is not on the command line');
    assert.deepEqual(opts?.env, { TOKEN: 'v$(x)' });
    assert.equal(opts?.cwd, undefined);
    assert.deepEqual(argv.slice(6, 8), ['/bin/sh', '-c']);
    assert.equal(argv[8], "cd ~/'w d' && echo 'it'\\''s'");
    assert.match(t.description, /ssh u@h:22 container skydeck-u1/);
  });

  it('a terminal on a container cluster lands in the container', () => {
    assert.equal(shellCommand('~/sky_workdir', { runtime: 'docker', name: 'skydeck-u1' }),
      `exec docker exec -it skydeck-u1 /bin/sh -c 'cd "$HOME"/sky_workdir 2>/dev/null; command -v bash >/dev/null && exec bash -l; exec sh -l'`);
  });
});
