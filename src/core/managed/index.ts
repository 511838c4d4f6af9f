export { MANAGED_STATUSES, TERMINAL, isTerminal, isManagedStatus, moveProblem, type ManagedStatus } from './states';
export { ManagedStore } from './store';
export { MANAGED_SCHEMA_VERSION } from './schema';
export { getJob, listJobs, listManagedEvents, moveJob, requestCancel, ManagedMoveError, type ManagedJob, type ManagedEvent, type JobListing, type JobPatch } from './jobRows';
export { managedRowProblem, managedEventProblem } from './rowCheck';
export { recoveryPolicy, placementOrder, cloudHealth, classifyEnd, type RecoveryPolicy, type RecoveryStrategy, type EndObservation, type EndVerdict, type CloudHealth } from './recovery';
export { ManagedController, type SubmitRequest, type OpenOptions } from './controller';
export type { ControllerOptions } from './core';
export { jobNameOf } from './names';
