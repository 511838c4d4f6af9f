// The environment an agent on this machine (a `local` cluster) starts with. The agent saves
// its client's environment for the jobs (env.json), so handing it the editor's whole
// environment would copy cloud credentials and tokens into every job and into the workspace.
// A job gets what a fresh login would give it, plus the agent's own settings.

const LOGIN = ['HOME', 'USER', 'LOGNAME', 'PATH', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TERM'];

/** The agent's documented settings (agent/README.md) and its self-stop test hooks. */
const AGENT = [
  'SKYDECK_TICK_INTERVAL', 'SKYDECK_DAEMON_IDLE_EXIT', 'SKYDECK_BOOT_ID_PATH',
  'SKYDECK_SHUTDOWN_COMMAND', 'SKYDECK_GCE_METADATA_URL', 'SKYDECK_GCE_API_URL',
  'SKYDECK_AZURE_IMDS_URL', 'SKYDECK_ARM_URL', 'SKYDECK_SELFSTOP_CA',
];

export function localNodeEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(from)) {
    if (v === undefined) continue;
    if (LOGIN.includes(k) || AGENT.includes(k) || k.startsWith('LC_')) out[k] = v;
  }
  return out;
}
