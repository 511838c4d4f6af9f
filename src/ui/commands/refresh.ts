import type { Command } from './command';

export const refresh: Command = {
  id: 'skydeck.refresh',
  run: ({ clusters }) => clusters.refresh(),
};
