// Reaching a cluster's head with the user's own tools: ssh command lines and Remote-SSH config.
export { containerAlias, sshAccessOf, sshAlias, sshArgv, sshCommandLine, sshConfigText, type SshAccess } from './sshAccess';
export {
  clusterConfigFile, defaultSshConfigPaths, ensureSshInclude, hasInclude, includeLine, removeClusterSshConfig,
  writeClusterSshConfig, type SshConfigPaths,
} from './sshConfigFile';
