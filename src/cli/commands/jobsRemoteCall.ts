import { LocalManagedClient, type ManagedJob } from '../../core/managed';
import { UPLOAD_TOKEN } from '../../core/managed/carryFiles';
import type { OpsContext } from '../../core/ops';
import { UsageError } from '../args';
import { EXIT, type CliIO } from '../io';
import { managedClient, stopLocalController } from '../controllerHome';
import { followManagedJob } from './jobsLogs';

const MAX_REQUEST = 16 * 1024 * 1024;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    size += (c as Buffer).length;
    if (size > MAX_REQUEST) throw new UsageError(`the request is over ${MAX_REQUEST} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isEnvs = (v: unknown): v is Record<string, string> => !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/** Env values may be secrets: what leaves the controller names them, never their values. */
function masked(j: ManagedJob): ManagedJob {
  return { ...j, envs: Object.fromEntries(Object.keys(j.envs).map((k) => [k, '<set>'])) };
}

/**
 * The hidden `jobs remote-call METHOD`, run on a controller node by the remote client: the
 * request is JSON on stdin (task texts and env values never appear on a command line), the
 * answer one JSON line on stdout. It uses the local client of the node, which starts the
 * controller there when no live one holds the store's lease.
 */
export async function jobsRemoteCall(io: CliIO, ctx: OpsContext, method: string | undefined): Promise<number> {
  let req: Record<string, unknown>;
  try {
    const v = JSON.parse((await readStdin()) || '{}') as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    req = v as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`jobs remote-call: the request on stdin is not a JSON object (${(e as Error).message})`);
  }
  const id = () => {
    if (!isId(req.id)) throw new UsageError('jobs remote-call: "id" must be a positive integer');
    return req.id;
  };
  if (method === 'follow') return followManagedJob(io, ctx, id());
  if (method === 'stop') {
    io.out(`${JSON.stringify({ stopped: (await stopLocalController(ctx.workspaceRoot)) ?? null })}\n`);
    return EXIT.ok;
  }
  const client = await managedClient(ctx);
  try {
    let answer: unknown;
    if (method === 'submit') {
      if (!isStrings(req.tasks) || !req.tasks.length) throw new UsageError('jobs remote-call submit: "tasks" must be a non-empty list of YAML texts');
      if (req.name !== undefined && typeof req.name !== 'string') throw new UsageError('jobs remote-call submit: "name" must be a string');
      if (req.envs !== undefined && !isEnvs(req.envs)) throw new UsageError('jobs remote-call submit: "envs" must map names to strings');
      if (req.uploads !== undefined && !(typeof req.uploads === 'string' && UPLOAD_TOKEN.test(req.uploads))) throw new UsageError('jobs remote-call submit: "uploads" must be an upload token');
      answer = await client.submit({ tasks: req.tasks, name: req.name, envs: req.envs, uploads: req.uploads });
    } else if (method === 'list') {
      const l = await client.list();
      answer = { jobs: l.jobs.map(masked), refused: l.refused };
    } else if (method === 'job') {
      const j = await client.job(id());
      answer = { job: j ? masked(j) : null };
    } else if (method === 'events') {
      answer = await client.events(id());
    } else if (method === 'cancel') {
      const ids = req.ids === 'all' ? 'all' : Array.isArray(req.ids) && req.ids.every(isId) ? (req.ids as number[]) : undefined;
      if (!ids) throw new UsageError('jobs remote-call cancel: "ids" must be "all" or a list of job ids');
      answer = await client.cancel(ids);
    } else if (method === 'seal' || method === 'unseal') {
      if (!(client instanceof LocalManagedClient)) throw new UsageError(`jobs remote-call ${method}: only the controller's own machine seals its store`);
      if (method === 'unseal') answer = (await client.unseal(), {});
      else {
        if (req.why !== 'stop' && req.why !== 'down') throw new UsageError('jobs remote-call seal: "why" must be "stop" or "down"');
        answer = { busy: await client.seal(req.why, req.force === true) };
      }
    } else {
      throw new UsageError(`jobs remote-call: unknown method ${JSON.stringify(method ?? '')}`);
    }
    io.out(`${JSON.stringify(answer)}\n`);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
