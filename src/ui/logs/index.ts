export { LogPanelManager, type LogSourceFactory } from './logPanelManager';
export { registerLogPanelSerializer } from './logPanelSerializer';
export type { LogSource, LogFollowHooks, LogFinal, LogStatusUpdate } from './logSource';
export { LOGS_VIEW_TYPE, type JobKey } from './protocol';
