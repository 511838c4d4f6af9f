import type { OpsContext } from '../core/ops';
import type { FlagSpec, ParsedArgs } from './args';
import type { CliIO } from './io';

/** One CLI verb; each lives in its own file under commands/. */
export interface CliCommand {
  name: string;
  /** One line for the command list. */
  summary: string;
  usage: string;
  flags: FlagSpec[];
  /** 'controller': its OpsContext is the managed-jobs controller's workspace, not the cwd's. */
  workspace?: 'controller';
  run(args: ParsedArgs, io: CliIO, ctx: () => Promise<OpsContext>): Promise<number>;
}
