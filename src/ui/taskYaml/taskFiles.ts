// Which files are task YAMLs: the same basename globs package.json gives the YAML schema
// (yamlValidation), so the editor features and the schema agree on what a task file is.
// No vscode import: unit-tested in plain Node.

/** Basename globs of task files. */
export const TASK_FILE_GLOBS = ['*.sky.yaml', 'sky*.yaml', 'task*.yaml'] as const;

/** For DocumentSelector patterns: `**` so the basename matches in any folder. */
export const TASK_FILE_PATTERN = `**/{${TASK_FILE_GLOBS.join(',')}}`;

const TASK_BASENAME = /^(?:.*\.sky\.yaml|sky.*\.yaml|task.*\.yaml)$/;

/** True when the file's basename matches one of TASK_FILE_GLOBS (either path separator). */
export function isTaskFileName(fileName: string): boolean {
  const base = fileName.split(/[\\/]/).pop() ?? '';
  return TASK_BASENAME.test(base);
}
