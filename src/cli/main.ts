import { CliIO, EXIT, processIO } from './io';
import { parseArgs, UsageError } from './args';
import type { CliCommand } from './command';
import { OpsError, type OpsContext } from '../core/ops';
import { cliContext, connectionReuse, enableHolder } from './opsContext';
import { validateCommand } from './commands/validate';
import { launchCommand } from './commands/launch';
import { execCommand } from './commands/exec';
import { queueCommand } from './commands/queue';
import { logsCommand } from './commands/logs';
import { cancelCommand } from './commands/cancel';
import { statusCommand } from './commands/status';
import { downCommand } from './commands/down';
import { startCommand, stopCommand } from './commands/stopStart';
import { leaksCommand } from './commands/leaks';
import { checkCommand } from './commands/check';
import { storageCommand } from './commands/storage';
import { jobsCommand } from './commands/jobs';
import { showGpusCommand } from './commands/showGpus';
import { costReportCommand } from './commands/costReport';
import { publishCosts, workspaceCosts } from '../core/cost';
import { controllerHome } from './controllerHome';
import { autostopCommand } from './commands/autostop';
import { warmHint } from './warmHint';

export const VERSION = '0.1.0';

const COMMANDS: CliCommand[] = [
  launchCommand, execCommand, queueCommand, logsCommand, cancelCommand, statusCommand,
  stopCommand, startCommand, autostopCommand, downCommand, leaksCommand, storageCommand, jobsCommand, checkCommand, validateCommand,
  showGpusCommand, costReportCommand,
];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Skydeck ${VERSION} — run SkyPilot task YAMLs on clusters, from the editor or this CLI.

Usage: skydeck <command> [options]     (skydeck <command> --help for its options)

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Exit codes: 0 ok; 1 failed (a followed job that failed exits with its own code); 2 bad usage
or input; 3 not available yet.
`;
}

/** Runs one CLI invocation; `makeContext` lets tests supply their own state and hooks. */
export async function runCli(argv: string[], io: CliIO = processIO, makeContext?: () => Promise<OpsContext>): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === '__holder') {
    // The connection holder (core/transport/holder): started by the CLI itself, not for users.
    const { holderMain } = require('../core/transport/holder/start') as typeof import('../core/transport/holder/start');
    return holderMain(process.env, { workerArgs: [...process.execArgv, process.argv[1], '__worker'] });
  }
  if (verb === '__worker') {
    // A warm worker of the holder (cli/worker.ts): runs CLI runs the thin entry hands over.
    const { workerMain } = require('./worker') as typeof import('./worker');
    return workerMain(runCli);
  }
  if (!verb || verb === '-h' || verb === '--help' || verb === 'help') {
    io.out(help());
    return verb ? EXIT.ok : EXIT.usage;
  }
  if (verb === '--version') {
    io.out(`${VERSION}\n`);
    return EXIT.ok;
  }
  const cmd = COMMANDS.find((c) => c.name === verb);
  let ctx: Promise<OpsContext> | undefined;
  try {
    if (!cmd) throw new UsageError(`unknown command "${verb}"`);
    if (rest.includes('--help') || rest.includes('-h')) {
      io.out(`${cmd.usage}\n`);
      return EXIT.ok;
    }
    const args = parseArgs(rest, cmd.flags);
    return await cmd.run(args, io, () => (ctx ??= (makeContext ?? (() => cliContext(io, cmd?.workspace === 'controller' ? controllerHome() : undefined)))()));
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`skydeck ${verb}: ${e.message}. Run "skydeck ${cmd ? `${verb} ` : ''}--help" for usage.\n`);
      return EXIT.usage;
    }
    io.err(`skydeck ${verb}: ${(e as Error).message}\n`);
    if (e instanceof OpsError) return e.kind === 'usage' ? EXIT.usage : e.kind === 'unavailable' ? EXIT.unavailable : EXIT.failed;
    if (process.env.SKYDECK_VERBOSE === '1') io.err(`${(e as Error).stack}\n`);
    return EXIT.failed;
  } finally {
    if (ctx && !makeContext) {
      const c = await ctx.catch(() => undefined);
      // Keep the per-user index of live clusters current after whatever the verb changed.
      if (c) await workspaceCosts(c).then((w) => publishCosts(c, w)).catch(() => undefined);
      // A holder's worker keeps them for its next run (opsContext.ts connectionReuse).
      if (!connectionReuse.get) await c?.connections.closeAll();
      c?.store.close();
    }
  }
}

/** The CLI as a program: dist/cli-main.js run directly, or required by the thin entry (thin.ts). */
export function cliMain(): void {
  // Only the CLI run as a program starts holders (never a test that calls runCli in-process).
  enableHolder(process.execPath, [...process.execArgv, __filename]);
  const argv = process.argv.slice(2);
  const hint = warmHint(argv, __filename);
  runCli(argv).then(async (code) => {
    if (code === 0) await hint?.();
    process.exit(code);
  });
}

if (require.main === module) cliMain();
