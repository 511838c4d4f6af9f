/**
 * An operation failed for a reason the user can act on. `kind` maps to CLI exit codes and
 * UI message styles: usage (bad input) and unavailable (feature not built yet) are not bugs.
 */
export class OpsError extends Error {
  constructor(readonly kind: 'usage' | 'failed' | 'unavailable', message: string) {
    super(message);
    this.name = 'OpsError';
  }
}
