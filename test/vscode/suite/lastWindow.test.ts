// Issue 20's "closing the last window with billing clusters and no autostop", in a real extension
// host. Another open window is played by a lease of a live process (a `sleep` child: its pid and
// start time are real, as a window's extension host's are); the window closes when that process
// dies. This window's own close is its deactivate() path (windowClosing), and its next start is
// start() again: one host cannot be restarted inside its own test run.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import { indexDir, lastClosePath, otherWindows, skydeckHome, writeLease } from '../../../src/core/cost';
import { processStart } from '../../../src/core/state/atomicWrite';
import { DONT_WARN, type LastWindowWatch } from '../../../src/ui/cost/lastWindowWatch';
import type { Notice } from '../../../src/ui/testProbe';
import { until } from './until';

describe('issue 20: the last window (extension host)', function () {
  this.timeout(60_000);
  let api: SkydeckApi;
  let lw: LastWindowWatch;
  const home = skydeckHome();
  const id = crypto.randomBytes(8).toString('hex');
  const entry = path.join(indexDir(home), `${id}.json`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-far-folder-'));
  const children: ChildProcess[] = [];
  const lastNotices = () => api.testProbe!.notices.filter((n) => n.message.startsWith('This is the last Skydeck window'));
  const closeNotes = () => api.testProbe!.notices.filter((n) => n.message.startsWith('When the last Skydeck window closed'));

  /** Another window: a live process with a lease in the registry. */
  async function otherWindow(): Promise<ChildProcess> {
    const c = spawn('sleep', ['300'], { stdio: 'ignore' });
    children.push(c);
    await new Promise((r) => c.once('spawn', r));
    const now = Date.now();
    writeLease({ version: 1, pid: c.pid!, procStart: processStart(c.pid!)!, hostname: os.hostname(), startedAt: now, renewedAt: now }, home);
    return c;
  }

  async function close(c: ChildProcess): Promise<void> {
    if (c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((r) => {
      c.once('exit', () => r());
      c.kill('SIGKILL');
    });
  }

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testLastWindow && api.testProbe, 'activate() exposes testLastWindow and testProbe under SKYDECK_TEST=1');
    // The lease starts with the core, which the Clusters view's first refresh loads.
    await api.clustersModel.reload();
    const watch = api.testLastWindow();
    assert.ok(watch, 'no window lease after the core loaded');
    lw = watch;
    // A folder whose cluster bills with no autostop, one with autostop, one stopped: the per-user index as its window wrote it.
    const cluster = (name: string, over: object) => ({ name, uid: crypto.randomUUID(), provider: 'aws', region: 'us-east-1', status: 'UP', usdPerHour: 1.25, autostopMinutes: null, ...over });
    fs.mkdirSync(path.dirname(entry), { recursive: true });
    fs.writeFileSync(entry, JSON.stringify({
      version: 1, workspaceId: id, folder, updatedAt: Date.now(),
      clusters: [cluster('far-unguarded', {}), cluster('far-guarded', { autostopMinutes: 10 }), cluster('far-stopped', { status: 'STOPPED', usdPerHour: 0.02 })],
    }));
  });

  after(async () => {
    if (api?.testProbe) api.testProbe.respond = undefined;
    for (const c of children) await close(c);
    fs.rmSync(entry, { force: true });
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(lastClosePath(home), { force: true });
  });

  it('this window holds a live lease while it is open', () => {
    assert.ok(otherWindows(undefined, Date.now(), home).live.some((l) => l.pid === process.pid), 'no lease of this extension host');
  });

  it('when the other window closes, one warning names what bills with no autostop; "Don\'t warn again" silences that set', async () => {
    api.testProbe!.respond = (n: Notice) => (n.message.startsWith('This is the last Skydeck window') ? DONT_WARN : undefined);
    const before = lastNotices().length;
    const other = await otherWindow();
    lw.tick();
    assert.equal(lastNotices().length, before, 'warned while another window is open');
    await close(other);
    lw.tick();
    const warned = lastNotices().slice(before);
    assert.equal(warned.length, 1, JSON.stringify(warned));
    assert.equal(warned[0].message, 'This is the last Skydeck window: cluster far-unguarded bills $1.25/h with no autostop, and keep billing after it closes.');
    // Its cluster is another folder's: this window's buttons could not stop it, the view can open that folder.
    assert.deepEqual(warned[0].items, ['Show Clusters', DONT_WARN]);
    lw.tick();
    assert.equal(lastNotices().length, before + 1, 'warned again while still the last window');

    // The answer was "Don't warn again for these": the same set, the same transition, no warning.
    await until('the silenced set to be stored', 10_000, () => lw.silencedSets().size > 0 || undefined);
    const again = await otherWindow();
    lw.tick();
    await close(again);
    lw.tick();
    assert.equal(lastNotices().length, before + 1, 'warned about a set the user silenced');
  });

  it('closing as the last window leaves a note; the next start shows it once', async () => {
    lw.windowClosing(); // what deactivate() calls
    assert.ok(!otherWindows(undefined, Date.now(), home).live.some((l) => l.pid === process.pid), 'the lease outlived the close');
    const note = JSON.parse(fs.readFileSync(lastClosePath(home), 'utf8')) as { clusters: { name: string; folder: string }[] };
    assert.deepEqual(note.clusters.filter((c) => c.folder === folder).map((c) => c.name), ['far-unguarded']);

    const before = closeNotes().length;
    lw.start();
    const shown = await until('the last-close note', 10_000, () => (closeNotes().length > before ? closeNotes()[before] : undefined));
    assert.match(shown.message, /^When the last Skydeck window closed at .+, cluster far-unguarded was billing \$1\.25\/h with no autostop\.$/);
    assert.ok(!fs.existsSync(lastClosePath(home)), 'the note is still there to be shown again');
    await lw.showLastClose();
    assert.equal(closeNotes().length, before + 1, 'the note was shown twice');
  });

  it('closing while another window is open leaves no note', async () => {
    const other = await otherWindow();
    lw.windowClosing();
    assert.ok(!fs.existsSync(lastClosePath(home)), 'a note although another window stays open');
    lw.start();
    await close(other);
  });
});
