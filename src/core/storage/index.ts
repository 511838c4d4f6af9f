// Node-side bucket storage over rclone: COPY, MOUNT, MOUNT_CACHED, unmount, flush-wait.
export type { BucketMount, MountMode, MountTuning, StoreKind } from './types';
export { describeTarget, mountLabel, targetOf, type BucketTarget, type NodeMount } from './target';
export { rcloneRemote, redact, REMOTE, type RcloneRemote, type StoreAccess, type StoreCredentials } from './rcloneRemote';
export { StorageError, classifyFailure, type StorageErrorKind } from './errors';
export { DEFAULT_TIMEOUTS, type StorageContext, type Timeouts } from './context';
export { copyFromBucket } from './copy';
export { mountBucket, type MountHandle } from './mount';
export { unmountBucket, lazyUnmount } from './unmount';
export { waitFlushed, flushState, type FlushState } from './flush';
export { findMount, isDeadMountError, mountAt, parseMountInfo, type MountEntry } from './mountInfo';
export { registerCachedMount, unregisterCachedMount, listCachedMounts, cachedRegistryPath, CACHED_REGISTRY_DIR, type CachedMountEntry } from './cachedRegistry';
