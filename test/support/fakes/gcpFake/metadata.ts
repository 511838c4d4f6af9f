// A fake of the GCE metadata server as one instance of the fake project sees it: the paths the
// agent's self-stop reads, the "Metadata-Flavor: Google" header it demands, and an access token
// for the instance's service account (none attached: 404, as on GCE). The token stands for that
// instance, so the Compute fake can check its scopes and its IAM roles (vmTokenCheck).
import * as http from 'node:http';
import { LoopbackHttp } from '../loopbackHttp';
import { forbidden, httpError, insufficientScopes, unauthenticated } from './bodies';
import { UnevaluableCondition } from './conditions';
import type { GceModel, Json } from './model';
import { conditionResource, permissionsFor, resourceOf } from './permissions';

const TOKEN_PREFIX = 'fake-vm-token:';
const SCOPES = ['https://www.googleapis.com/auth/compute', 'https://www.googleapis.com/auth/cloud-platform'];

export class GceMetadataFake extends LoopbackHttp {
  readonly requests: string[] = [];

  constructor(private readonly m: GceModel, private readonly zone: string, private readonly name: string) {
    super();
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/computeMetadata/v1`;
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '').split('?')[0].replace(/^\/computeMetadata\/v1\//, '');
    this.requests.push(path);
    const send = (status: number, body: string, type = 'application/text') => {
      res.writeHead(status, { 'content-type': type, 'metadata-flavor': 'Google' });
      res.end(body);
    };
    if (req.headers['metadata-flavor'] !== 'Google') return send(403, 'Missing required header: "Metadata-Flavor"', 'text/html');
    const inst = this.m.instances.get(`${this.zone}/${this.name}`);
    switch (path) {
      case 'project/project-id':
        return send(200, this.m.project);
      case 'instance/zone':
        return send(200, `projects/${this.m.projectNumber}/zones/${this.zone}`);
      case 'instance/name':
        return send(200, this.name);
      case 'instance/service-accounts/default/token': {
        if (!(inst?.serviceAccounts as unknown[] | undefined)?.length) return send(404, 'Not Found', 'text/html');
        const token = { access_token: `${TOKEN_PREFIX}${this.zone}/${this.name}`, expires_in: 3599, token_type: 'Bearer' };
        return send(200, JSON.stringify(token), 'application/json');
      }
      default:
        return send(404, 'Not Found', 'text/html');
    }
  }
}

/**
 * A request made with an instance's token: allowed while that instance exists, its scopes cover
 * the API, and the project's IAM policy gives its service account roles holding every permission
 * the call needs on the resource it is checked on (permissions.ts; GCP checks both: scopes cap
 * the token, IAM decides; a conditional binding counts where its condition holds, conditions.ts).
 * An account the call attaches needs iam.serviceAccounts.actAs on that account itself: a project
 * role, or a role in the account's own policy (FakeIam.allows).
 * Refusals are shaped as Compute sends them: 401, 403 insufficientPermissions (scopes), 403
 * forbidden (IAM, naming the permission and that resource). A condition the fake cannot evaluate
 * is a 500 naming it, never a grant.
 */
export function vmTokenCheck(m: GceModel, authorization: string | undefined, method: string, path: string, body?: Json): void {
  const token = /^Bearer (\S+)/.exec(authorization ?? '')?.[1] ?? '';
  if (!token.startsWith(TOKEN_PREFIX)) return;
  const inst = m.instances.get(token.slice(TOKEN_PREFIX.length));
  if (!inst) throw unauthenticated();
  const accounts = (inst.serviceAccounts ?? []) as { email: string; scopes: string[] }[];
  if (!accounts.flatMap((sa) => sa.scopes).some((s) => SCOPES.includes(s))) throw insufficientScopes();
  const needed = permissionsFor(method, path, body);
  // instances.insert may name the project's default account as "default".
  const where = (p: string) => resourceOf(needed, p).replace(/\/serviceAccounts\/default$/, `/serviceAccounts/${m.iam.defaultAccount}`);
  try {
    const missing = needed.permissions.find((p) => !accounts.some((sa) => m.iam.allows(sa.email, p, conditionResource(where(p)))));
    if (missing) throw forbidden(missing, where(missing));
  } catch (e) {
    if (e instanceof UnevaluableCondition) throw httpError(500, e.message, 'backendError');
    throw e;
  }
}

/** The bearer token the fake accepts as instance `zone/name`'s own (what its metadata server hands out). */
export function vmToken(zone: string, name: string): string {
  return `${TOKEN_PREFIX}${zone}/${name}`;
}
