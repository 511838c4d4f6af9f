// Every benchmark's entry point: run main(), then exit — non-zero on any failure, and at once,
// even when something it started (a server, a browser, a child) still holds the event loop.
// 'exit' hooks (test hosts, code-server) still run and end what is left.
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
