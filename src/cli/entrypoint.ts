import { UsageError } from './args';

// A task YAML or a command, decided as `sky` decides (its _check_yaml): the words after the
// options are joined with spaces; one word ending in .yaml/.yml is a task YAML, anything else
// is a command run as the task's `run`. A .yaml/.yml word that names no file is refused by the
// loader ("file not found") rather than run as a command: sky asks first, and a typo should
// not reach a cluster.

export type Entrypoint = { taskFile: string } | { command: string };

const YAML_NAME = /\.ya?ml$/i;

export function entrypointOf(words: string[], verb: string): Entrypoint {
  if (!words.length) throw new UsageError(`${verb} takes a task YAML or a command`);
  if (words.length === 1 && YAML_NAME.test(words[0].trim())) return { taskFile: words[0].trim() };
  const command = words.join(' ');
  if (!command.trim()) throw new UsageError(`${verb}: the command is empty`);
  return { command };
}
