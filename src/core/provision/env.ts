import type { StateStore } from '../state';
import type { Provider } from '../clouds/provider';
import { realClock, type Clock } from './clock';
import { DEFAULT_TIMING, type ProvisionTiming } from './timing';

/** What the provision loop, proofs, refresh and sweep need: no VS Code, no agent. */
export interface ProvisionEnv {
  store: StateStore;
  provider: Provider;
  clock: Clock;
  timing: ProvisionTiming;
  progress(step: string): void;
  log(message: string): void;
}

export interface EnvSource {
  store: StateStore;
  clock?: Clock;
  timing?: Partial<ProvisionTiming>;
  progress(step: string): void;
  log(message: string): void;
}

export function makeEnv(src: EnvSource, provider: Provider): ProvisionEnv {
  return {
    store: src.store,
    provider,
    clock: src.clock ?? realClock,
    timing: { ...DEFAULT_TIMING, ...src.timing },
    // A progress reporter must never end the loop: an exception out of it after a create
    // call would leave instances behind. Cancellation is the AbortSignal.
    progress: (s) => {
      try {
        src.progress(s);
      } catch (e) {
        src.log(`progress report failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    log: (m) => src.log(m),
  };
}
