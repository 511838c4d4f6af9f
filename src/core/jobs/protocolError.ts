/**
 * The agent answered something that does not have the protocol's shape: `command` is the
 * request (or `hello`), `problem` names the field path and what was wrong, e.g.
 * `queue: rows[3].status: expected one of INIT|PENDING|…, got 7`. Not retried: asking again
 * would get the same answer.
 */
export class AgentProtocolError extends Error {
  constructor(readonly command: string, readonly problem: string, where?: string) {
    super(`the agent${where ? ` on ${where}` : ''} sent a malformed answer: ${command}: ${problem}`);
    this.name = 'AgentProtocolError';
  }
}

/**
 * The node's agent speaks another protocol than this client even after Skydeck installed its
 * own agent there. `ownCopy`: the node holds exactly the agent this Skydeck ships, so the
 * installation itself is inconsistent; otherwise something else (another Skydeck version
 * sharing the node) keeps putting its agent back.
 */
export class AgentVersionError extends Error {
  constructor(
    readonly where: string,
    readonly agentProtocol: number,
    readonly clientProtocol: number,
    agentVersion: string,
    readonly ownCopy = false,
  ) {
    const speaks = `the agent on ${where} (version ${agentVersion}) speaks protocol ${agentProtocol}`;
    super(
      ownCopy
        ? `${speaks}, but this Skydeck speaks ${clientProtocol} and that agent is the one it ships: ` +
          'this Skydeck installation is inconsistent. Reinstall Skydeck.'
        : agentProtocol < clientProtocol
          ? `${speaks}, older than this Skydeck's protocol ${clientProtocol}, and installing this Skydeck's agent did ` +
            'not stick: an older Skydeck is using the same node and puts its agent back. Update that Skydeck ' +
            '(every Skydeck sharing a node must speak one protocol).'
          : `${speaks}, newer than this Skydeck's protocol ${clientProtocol}: this Skydeck is the older side. ` +
            'Update Skydeck; a newer Skydeck is using the same node and puts its agent back.',
    );
    this.name = 'AgentVersionError';
  }
}
