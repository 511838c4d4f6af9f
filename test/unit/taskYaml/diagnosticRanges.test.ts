// Core diagnostics (1-based, end exclusive) -> editor ranges (0-based), and the message text.

import assert from 'node:assert/strict';
import { parseTaskText } from '../../../src/core/task';
import { diagnosticText, toZeroBasedRange } from '../../../src/ui/taskYaml/diagnosticRanges';

describe('task YAML diagnostics: range conversion', () => {
  it('subtracts one from every line and column', () => {
    assert.deepEqual(toZeroBasedRange({ line: 3, col: 5, endLine: 3, endCol: 9 }), {
      startLine: 2, startCharacter: 4, endLine: 2, endCharacter: 8,
    });
    assert.deepEqual(toZeroBasedRange({ line: 1, col: 1, endLine: 4, endCol: 2 }), {
      startLine: 0, startCharacter: 0, endLine: 3, endCharacter: 1,
    });
  });

  it('keeps an empty (zero-width) range empty', () => {
    assert.deepEqual(toZeroBasedRange({ line: 1, col: 1, endLine: 1, endCol: 1 }), {
      startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 0,
    });
  });

  it('never yields negative or inverted ranges', () => {
    assert.deepEqual(toZeroBasedRange({ line: 0, col: 0, endLine: 0, endCol: 0 }), {
      startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 0,
    });
    assert.deepEqual(toZeroBasedRange({ line: 2, col: 5, endLine: 2, endCol: 3 }), {
      startLine: 1, startCharacter: 4, endLine: 1, endCharacter: 4,
    });
    assert.deepEqual(toZeroBasedRange({ line: 3, col: 1, endLine: 2, endCol: 9 }), {
      startLine: 2, startCharacter: 0, endLine: 2, endCharacter: 0,
    });
  });

  it('underlines exactly the offending text of a real parse result', () => {
    const text = 'run: echo hi\nresources:\n  cpus: lots\n  disk_tier: fastest\n';
    const lines = text.split('\n');
    const { diagnostics } = parseTaskText(text, 'task.yaml');
    const underlined = diagnostics.map((d) => {
      const r = toZeroBasedRange(d);
      assert.equal(r.startLine, r.endLine, 'these values are one line each');
      return lines[r.startLine].slice(r.startCharacter, r.endCharacter);
    });
    assert.deepEqual(underlined.sort(), ['fastest', 'lots']);
  });

  it('a bad bucket line: the URL, the misspelt mode and the bad name are underlined, each with its fix', () => {
    const text = 'resources: {cloud: aws}\nfile_mounts:\n  /a: s4://my-bucket\n  /b:\n    source: s3://my-bucket\n    mode: MOUNTT\n  /c: {name: My_Ckpt}\nrun: ls\n';
    const lines = text.split('\n');
    const shown = parseTaskText(text, 'task.yaml').diagnostics.map((d) => {
      const r = toZeroBasedRange(d);
      return [r.startLine, lines[r.startLine].slice(r.startCharacter, r.endCharacter), diagnosticText(d)];
    });
    assert.deepEqual(shown, [
      [2, 's4://my-bucket', 'file_mounts["/a"]: unknown bucket URL scheme "s4://" (did you mean "s3://my-bucket"?)'],
      [5, 'MOUNTT', 'file_mounts["/b"].mode must be one of MOUNT, COPY, MOUNT_CACHED, got "MOUNTT" (did you mean "MOUNT"?)'],
      [6, 'My_Ckpt', '"My_Ckpt" is not a valid S3 bucket name: it may hold only lowercase letters, digits, dots and hyphens ' +
        '(did you mean "my-ckpt"? S3 bucket names are 3-63 characters of a-z, 0-9, "." and "-", starting and ending with a letter or digit)'],
    ]);
  });

  it('message with the hint in parentheses, or alone', () => {
    assert.equal(diagnosticText({ message: 'unknown field', hint: 'did you mean cpus?' }), 'unknown field (did you mean cpus?)');
    assert.equal(diagnosticText({ message: 'unknown field' }), 'unknown field');
  });
});
