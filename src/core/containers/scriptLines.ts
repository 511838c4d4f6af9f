// A node script reports as it goes ("progress …", "ok …", "error KIND …"), one line each;
// stdout arrives in chunks that can cut a line anywhere.

/** Feeds whole lines to onLine; flush hands over a last line with no newline. */
export function scriptLines(onLine: (line: string) => void): { onStdout: (b: Buffer) => void; flush: () => void } {
  let pending = '';
  return {
    onStdout: (b) => {
      pending += b.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    },
    flush: () => {
      if (pending) onLine(pending);
      pending = '';
    },
  };
}
