// XML pieces for the EC2 fault proxy: EC2's query-protocol error body, a fake terminate
// answer, and removal of chosen instances from a DescribeInstances answer.

export function ec2ErrorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>fault-proxy</RequestID></Response>`;
}

/** What EC2 says to a terminate it accepted: each instance "shutting-down". */
export function fakeTerminateXml(ids: string[]): string {
  const items = ids.map((id) => `<item><instanceId>${id}</instanceId><currentState><code>32</code><name>shutting-down</name></currentState>` +
    '<previousState><code>16</code><name>running</name></previousState></item>').join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<TerminateInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>fault-proxy</requestId><instancesSet>${items}</instancesSet></TerminateInstancesResponse>`;
}

/** Instance ids in a RunInstances answer, in order. */
export function instanceIdsIn(xml: string): string[] {
  return [...xml.matchAll(/<instanceId>(i-[0-9a-f]+)<\/instanceId>/g)].map((m) => m[1]);
}

/**
 * Drops the top-level <item> of every <instancesSet> whose instance id is in `hide`. Items
 * nest (block devices, network interfaces), so this tracks depth rather than matching a regex.
 */
export function withoutInstances(xml: string, hide: (id: string) => boolean): string {
  const tag = /<(\/?)(item|instancesSet)>/g;
  let out = '';
  let copied = 0;
  let inSet = false;
  let depth = 0;
  let itemStart = -1;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const closing = m[1] === '/';
    if (m[2] === 'instancesSet') {
      inSet = !closing;
      continue;
    }
    if (!inSet) continue;
    if (!closing) {
      if (depth === 0) itemStart = m.index;
      depth++;
      continue;
    }
    depth--;
    if (depth !== 0) continue;
    const end = m.index + m[0].length;
    const id = /<instanceId>([^<]+)<\/instanceId>/.exec(xml.slice(itemStart, end))?.[1];
    if (id && hide(id)) {
      out += xml.slice(copied, itemStart);
      copied = end;
    }
  }
  return out + xml.slice(copied);
}
