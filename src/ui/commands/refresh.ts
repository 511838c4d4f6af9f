import type { Command } from './command';

export const refresh: Command<'refresh'> = {
  id: 'skydeck.refresh',
  run: ({ refresh }) => refresh(),
};
