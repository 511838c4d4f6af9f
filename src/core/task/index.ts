// Task YAML: parse SkyPilot task files into typed tasks with positioned diagnostics.

export type {
  AcceleratorOption, Autostop, Diagnostic, FileMount, GitWorkdir, JobRecovery, ParseOptions, ParseResult, PortRange, Quantity,
  Resources, Task, Workdir,
} from './types';
export { parseTaskText, parseTaskFile } from './parse';
export { formatDiagnostic, formatPath } from './diagnostics';
export { taskSchema, taskSchemaJson } from './schema';
export { resolveEnvs } from './envs';
export { namesCloud } from './namesCloud';
export { parseAccelerator, parseAccelerators, formatAccelerator } from './accelerators';
export { resourceCandidates } from './candidates';
export { ALL_CLOUDS, SKYDECK_CLOUDS } from './names';
export { localMountNote, mountDestinationProblem } from './mountPaths';
export { printable } from './printable';
export { MAX_TASK_FILE_BYTES } from './parse';
export { describeBucketMount, describeFileMount } from './bucketText';
export { overrideTask, overrideDocument, hasOverrides, type TaskOverrides, type OverrideResult } from './overrides';
export { parseEnvFile } from './envFile';
