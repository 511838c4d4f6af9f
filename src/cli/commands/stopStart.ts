import { OpsError } from '../../core/ops';
import type { CliCommand } from '../command';

const unavailable = (verb: string): CliCommand => ({
  name: verb,
  summary: `${verb} a cloud cluster (not available yet)`,
  usage: `skydeck ${verb} CLUSTER`,
  flags: [{ name: 'yes', short: 'y' }],
  async run() {
    throw new OpsError('unavailable', `${verb} applies to cloud clusters, which are not available yet; local and ssh clusters are only launched and downed`);
  },
});

export const stopCommand = unavailable('stop');
export const startCommand = unavailable('start');
