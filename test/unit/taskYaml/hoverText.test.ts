// The task YAML hover as Markdown: the schema description of the field, and inside a mount the
// sentence saying what will happen to it.
import assert from 'node:assert/strict';
import { taskHoverMarkdown } from '../../../src/ui/taskYaml/hoverText';

const TASK = `resources:
  cloud: aws
file_mounts:
  /data:
    source: s3://bkt/p
    mode: MOUNT
  /ckpt: {name: ckpt-bkt, mode: MOUNT_CACHED}
run: echo hi
`;
const at = (needle: string) => taskHoverMarkdown(TASK, TASK.indexOf(needle) + 1);

describe('task YAML hover: Markdown', () => {
  it('on a bucket URL: the field, then what happens ("MOUNT of s3://… at /data")', () => {
    const h = at('s3://bkt');
    assert.ok(h);
    assert.match(h.markdown, /^\*\*file\\_mounts\\\["\/data"\\\]\.source\*\*\n\nAn existing bucket: s3:\/\//);
    assert.match(h.markdown, /\n\n\*\*MOUNT\*\* of `s3:\/\/bkt\/p` at `\/data` — reads streamed, writes go to the bucket\./);
    assert.equal(TASK.slice(h.start, h.end), 'source');
  });

  it('on mode: all three modes explained, and the chosen one in the mount sentence', () => {
    const h = at('mode: MOUNT_CACHED');
    assert.ok(h);
    for (const m of ['MOUNT (default)', 'COPY:', 'MOUNT_CACHED:']) assert.ok(h.markdown.includes(m), m);
    assert.match(h.markdown, /\*\*MOUNT_CACHED\*\* of `s3 bucket ckpt-bkt` at `\/ckpt` — mounted with a local write cache/);
    assert.match(h.markdown, /created by Skydeck|creates the bucket if it is missing/);
  });

  it('outside file_mounts: the schema description alone', () => {
    const h = at('run:');
    assert.equal(h?.markdown, '**run**\n\nCommands the job runs on every node.');
  });
});
