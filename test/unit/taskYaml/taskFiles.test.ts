// Which files get task YAML diagnostics: the package.json yamlValidation globs, by basename.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TASK_FILE_GLOBS, TASK_FILE_PATTERN, isTaskFileName } from '../../../src/ui/taskYaml/taskFiles';

describe('task YAML files: isTaskFileName', () => {
  it('matches *.sky.yaml, sky*.yaml and task*.yaml by basename', () => {
    for (const f of ['/w/hello.sky.yaml', '/w/sky.yaml', '/w/sky-train.yaml', '/w/task.yaml', '/w/tasks/task_2.yaml', 'C:\\w\\task.yaml', 'train.sky.yaml']) {
      assert.equal(isTaskFileName(f), true, f);
    }
  });

  it('does not match other YAML, .yml, or a glob matching only a folder name', () => {
    for (const f of ['/w/config.yaml', '/w/task.yml', '/w/mytask.yaml', '/w/sky/config.yaml', '/w/task.yaml.bak', '/w/hello.sky.yml', '/w/task']) {
      assert.equal(isTaskFileName(f), false, f);
    }
  });

  it('uses the same globs as package.json yamlValidation', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { yamlValidation: { fileMatch: string }[] };
    };
    assert.deepEqual(pkg.contributes.yamlValidation.map((v) => v.fileMatch).sort(), [...TASK_FILE_GLOBS].sort());
    assert.equal(TASK_FILE_PATTERN, '**/{*.sky.yaml,sky*.yaml,task*.yaml}');
  });
});
