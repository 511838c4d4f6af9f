export { AgentClient } from './agentClient';
export type { AgentClientOptions } from './agentClient';
export { ensureAgent } from './bootstrap';
export type { AgentLocation } from './bootstrap';
export { AgentError, AgentGoneError } from './rpc';
export { AgentProtocolError, AgentVersionError } from './protocolError';
export { AGENT_PROTOCOL } from './commands';
export type { AgentCommands, AgentCommand, StatusResult, ShutdownResult, ConfigureArgs, AutostopConfig } from './commands';
export * from './protocol';
