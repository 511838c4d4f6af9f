// Issue 16 review: a bucket mount that reaches the node code without the parser (state, another
// caller) over /, ~, a system directory, ~/.ssh or ~/.skydeck is refused before any command runs.
import assert from 'node:assert/strict';
import { copyFromBucket, mountBucket, StorageError, type NodeMount } from '../../../src/core/storage';
import type { Transport } from '../../../src/core/transport';

describe('storage: destinations that would cover the node\'s own files', () => {
  const commands: string[] = [];
  const transport = {
    description: 'recorder',
    async exec(argv: string[]) { commands.push(argv.join(' ')); throw new Error('no command may run'); },
    async execShell(s: string) { commands.push(s); throw new Error('no command may run'); },
  } as unknown as Transport;
  const ctx = { transport, stateBase: '~/.skydeck/storage', access: { credentials: { kind: 'vm' as const } } };

  for (const dst of ['/', '~', '~/', '/home', '/etc', '~/.ssh', '~/.skydeck/storage/x']) {
    it(`${JSON.stringify(dst)}: COPY and MOUNT are refused with the fix, nothing runs`, async () => {
      for (const mode of ['COPY', 'MOUNT', 'MOUNT_CACHED'] as const) {
        const m: NodeMount = { dst, mode, target: { store: 's3', bucket: 'bkt', prefix: '' } };
        const p = mode === 'COPY' ? copyFromBucket(ctx, m) : mountBucket(ctx, m);
        await assert.rejects(p, (e: Error) => {
          assert.ok(e instanceof StorageError, String(e));
          assert.equal(e.kind, 'mountpoint');
          assert.match(e.message, /the destination (is the|is inside).*directory of its own/);
          return true;
        });
      }
      assert.deepEqual(commands, []);
    });
  }
});
