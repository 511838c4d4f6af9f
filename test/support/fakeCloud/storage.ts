// Where the fake cloud's state lives: in memory for unit tests, or in a JSON file so a fresh
// process (after kill -9) sees the same cloud. File writes are atomic (temp + rename).
import * as fs from 'node:fs';
import { emptyState, type FakeCloudState } from './model';

export interface FakeCloudStorage {
  load(): FakeCloudState;
  save(s: FakeCloudState): void;
}

export function memoryStorage(initial: FakeCloudState = emptyState()): FakeCloudStorage & { state: FakeCloudState } {
  const box = {
    state: initial,
    load: () => box.state,
    save: (s: FakeCloudState) => {
      box.state = s;
    },
  };
  return box;
}

export function fileStorage(file: string, initial: FakeCloudState = emptyState()): FakeCloudStorage {
  if (!fs.existsSync(file)) fs.writeFileSync(file, JSON.stringify(initial));
  return {
    load: () => JSON.parse(fs.readFileSync(file, 'utf8')) as FakeCloudState,
    save: (s) => {
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(s));
      fs.renameSync(tmp, file);
    },
  };
}
