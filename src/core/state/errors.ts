/** The state file was written by a newer Skydeck; we refuse rather than guess at its meaning. */
export class StateVersionError extends Error {
  constructor(readonly file: string, readonly found: number, readonly supported: number) {
    super(
      `${file} uses state schema v${found}, but this Skydeck understands up to v${supported}. ` +
        `It was written by a newer Skydeck: update the extension/CLI. The file was left untouched.`,
    );
    this.name = 'StateVersionError';
  }
}

export class StateLockTimeoutError extends Error {
  constructor(readonly lockFile: string, readonly owner: string, waitedMs: number) {
    super(
      `Could not lock ${lockFile} within ${Math.round(waitedMs / 1000)} s: held by ${owner}. ` +
        `If no Skydeck process is running, delete the lock file.`,
    );
    this.name = 'StateLockTimeoutError';
  }
}

/** The state path is not a regular file (a directory, a device): we cannot read it, nor move it. */
export class StateFileError extends Error {
  constructor(readonly file: string, what: string) {
    super(
      `Skydeck's state file ${file} is ${what}, not a file Skydeck wrote. Move it out of the way ` +
        `(or delete it if it is not yours) and run this again: Skydeck then starts a new, empty state there.`,
    );
    this.name = 'StateFileError';
  }
}

/** What the store did on open that the user must hear about (never silent). */
export interface StateNotice {
  kind: 'corrupt-moved';
  message: string;
  movedTo: string;
}
