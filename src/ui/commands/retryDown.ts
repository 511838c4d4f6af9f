import type { Command } from './command';
import { downCluster } from './downCluster';

/**
 * Retry Down: offered on clusters whose tear-down was not confirmed (contextValue
 * ":down-unconfirmed"). It is Down itself, with the same confirmation: ops.down re-issues the
 * terminate and waits for proof again; its own title makes the retry visible in the menu.
 */
export const retryDown: Command<'log' | 'model' | 'ops' | 'refresh'> = {
  id: 'skydeck.retryDown',
  run: (ctx, ...args) => downCluster.run(ctx, ...args),
};
