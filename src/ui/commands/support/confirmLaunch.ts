import { notify } from '../../notify';
import { parseTaskFile } from '../../../core/task';
import { launchQuestion } from './launchConfirmText';
import { Dismissed } from './pickers';

/**
 * Before an interactive launch: one modal with the priced plan of a new cloud cluster and the
 * local paths that will be uploaded (launchConfirmText.ts). Nothing to say (a task that does not
 * parse, which the launch reports; an existing local cluster with no uploads): no question.
 */
export async function confirmLaunch(file: string, base: string, what: string, o: { isNew: boolean; where?: { cloud: string; region?: string } }): Promise<void> {
  const task = (await parseTaskFile(file)).tasks[0];
  const q = task && launchQuestion(task, base, what, o);
  if (!q) return;
  const pick = await notify.info(q.message, { modal: true, detail: q.detail }, q.action);
  if (pick !== q.action) throw new Dismissed();
}
