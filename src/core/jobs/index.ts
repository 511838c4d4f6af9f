export { AgentClient } from './agentClient';
export type { AgentClientOptions } from './agentClient';
export { ensureAgent } from './bootstrap';
export type { AgentLocation } from './bootstrap';
export { AgentError, AgentGoneError } from './rpc';
export * from './protocol';
