export { StateStore } from './stateStore';
export { StateVersionError, StateLockTimeoutError } from './errors';
export type { StateNotice } from './errors';
export { SCHEMA_VERSION } from './schema';
export * from './clusters';
export * from './jobs';
export * from './events';
export { workspaceId } from './meta';
