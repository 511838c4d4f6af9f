// A fake of Azure's Instance Metadata Service as one VM of the fake ARM sees it: the header it
// demands ("Metadata: true"), the compute facts the agent's self-stop reads, and a managed
// identity token standing for the VM's principal (no identity: the 400 IMDS gives).
import * as http from 'node:http';
import { LoopbackHttp } from '../loopbackHttp';
import { MI_TOKEN_PREFIX } from './identity';
import type { ArmModel } from './model';

export class ImdsFake extends LoopbackHttp {
  readonly requests: string[] = [];

  constructor(private readonly m: ArmModel, public vmId: string) {
    super();
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/metadata`;
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    this.requests.push(url.pathname + url.search);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.metadata !== 'true') return send(400, { error: 'Bad request. Required metadata header not specified' });
    if (!url.searchParams.get('api-version')) return send(400, { error: 'Bad request. api-version was not specified in the request' });
    const vm = this.m.get(this.vmId);
    if (!vm) return send(404, { error: 'Not found' });
    const [, , subscriptionId, , resourceGroupName] = vm.id.split('/');
    // MSAL asks for ".../oauth2/token/" (a trailing slash), which IMDS answers as without one.
    switch (url.pathname.replace(/(.)\/$/, '$1')) {
      case '/metadata/instance/compute':
        return send(200, { name: vm.name, resourceGroupName, subscriptionId, location: vm.location, vmId: vm.properties.vmId, vmSize: vm.properties.hardwareProfile?.vmSize, resourceId: vm.id });
      case '/metadata/identity/oauth2/token': {
        if (!url.searchParams.get('resource')) return send(400, { error: 'invalid_request', error_description: 'Required query variable \'resource\' is missing' });
        // A user-assigned identity is asked for by msi_res_id, client_id or object_id; none: the system-assigned one.
        const q = url.searchParams;
        const users = Object.entries(vm.identity?.userAssignedIdentities ?? {}) as [string, { principalId: string; clientId: string }][];
        const asked = q.get('msi_res_id') ?? q.get('client_id') ?? q.get('object_id');
        const user = asked ? users.find(([id, u]) => id.toLowerCase() === asked.toLowerCase() || u.clientId === asked || u.principalId === asked) : undefined;
        const principal = asked ? user?.[1].principalId : vm.identity?.principalId;
        if (!principal) return send(400, { error: 'invalid_request', error_description: 'Identity not found' });
        return send(200, {
          access_token: `${MI_TOKEN_PREFIX}${principal}`, expires_in: '86399', expires_on: String(Math.floor(Date.now() / 1000) + 86399),
          resource: q.get('resource'), token_type: 'Bearer', client_id: user?.[1].clientId ?? principal,
        });
      }
      default:
        return send(404, { error: 'Not found' });
    }
  }
}
