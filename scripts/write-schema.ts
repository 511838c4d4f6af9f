// Writes the generated task-schema files: schemas/task.schema.json (the editor's YAML
// validation) and schemas/task.validator.js (the precompiled validator core/task uses).
// Run after changing the schema: npm run schema (test/unit/task/schema.test.ts fails while
// either file is stale).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { taskSchemaJson } from '../src/core/task/schema';
import { taskValidatorCode } from '../src/core/task/validatorCode';

const dir = join(__dirname, '..', 'schemas');
writeFileSync(join(dir, 'task.schema.json'), taskSchemaJson());
writeFileSync(join(dir, 'task.validator.js'), taskValidatorCode());
console.log(`wrote ${dir}/task.schema.json and task.validator.js`);
