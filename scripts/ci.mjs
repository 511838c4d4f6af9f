// Whether this is a CI run. Under CI a missing emulator, browser, sshd or code-server is a test
// FAILURE, never a skip (a green run must mean the suites ran); developers' partial runs may
// still skip, loudly. `.ci/run` sets CI=true when the CI service has not.
export function inCi(env = process.env) {
  const v = String(env.CI ?? '').trim().toLowerCase();
  return v !== '' && v !== '0' && v !== 'false';
}
