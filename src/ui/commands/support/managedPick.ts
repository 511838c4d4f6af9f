import * as vscode from 'vscode';
import type { ClustersModel } from '../../tree/clustersModel';
import type { ManagedJobView } from '../../../core/managed';
import { isNode } from '../../tree/nodeKind';
import { Dismissed } from './pickers';
import { isEnded, STATUS_WORDS } from '../../tree/managedJobsModel';
import { KEEP_OPEN } from './promptOptions';

/** A managed job from a tree node (click or menu), an id (tests, other commands), else a pick. */
export async function managedJobFromArg(
  model: ClustersModel, arg: unknown, title: string, filter: (v: ManagedJobView) => boolean = () => true,
): Promise<{ id: number; name?: string }> {
  if (isNode(arg, 'managed-job')) return { id: arg.view.job.id, name: arg.view.job.name };
  if (typeof arg === 'number' && Number.isSafeInteger(arg) && arg > 0) return { id: arg, name: model.managed.job(arg)?.job.name };
  await model.reload();
  const items = model.managed.all.filter(filter).map((v) => ({ label: `#${v.job.id} ${v.job.name}`, description: STATUS_WORDS[v.job.status], id: v.job.id, name: v.job.name }));
  if (!items.length) {
    throw new Error('there is no managed job to choose from');
  }
  const pick = await vscode.window.showQuickPick(items, { title, ...KEEP_OPEN });
  if (!pick) throw new Dismissed();
  return { id: pick.id, name: pick.name };
}

export const cancellable = (v: ManagedJobView) => !isEnded(v.job.status) && !v.job.cancelRequested;
