// Writes schemas/task.schema.json from the task schema in src/core/task, for the editor's
// YAML validation. Run after changing the schema: npx tsx scripts/write-schema.ts
// (test/unit/task/schemaFile.test.ts fails while the file is stale).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { taskSchemaJson } from '../src/core/task/schema';

const target = join(__dirname, '..', 'schemas', 'task.schema.json');
writeFileSync(target, taskSchemaJson());
console.log(`wrote ${target}`);
