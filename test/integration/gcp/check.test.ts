// "Check Clouds" for GCP: plainly missing credentials or project are reported with the exact
// fix and no network call; with both present one zones.list call proves they work.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThroughClient } from 'google-auth-library';
import { checkGcp, checkGcpLocal } from '../../../src/core/clouds/gcp';
import { localProject } from '../../../src/core/clouds/gcp/project';
import { startGcpBed, PROJECT, type GcpBed } from './helpers';

describe('gcp: credential check', function () {
  this.timeout(20_000);
  let bed: GcpBed;
  before(async () => (bed = await startGcpBed()));
  after(async () => bed?.close());

  function gcloudDir(name: string, files: Record<string, string>): string {
    const dir = path.join(bed.dir, name);
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), text);
    }
    return dir;
  }

  it('no ADC: says to run "gcloud auth application-default login", without a call', async () => {
    const seen = bed.fake.model.calls.length;
    const r = await checkGcp({ gcloudConfigDir: gcloudDir('empty', {}), env: {}, apiEndpoint: '127.0.0.1', port: bed.fake.port, protocol: 'http' });
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.fix, 'gcloud auth application-default login');
    assert.equal(bed.fake.model.calls.length, seen);
  });

  it('ADC but no project: says how to set one', () => {
    const dir = gcloudDir('adc-only', { 'application_default_credentials.json': JSON.stringify({ type: 'authorized_user', client_id: 'x', client_secret: 's', refresh_token: 'r' }) });
    const r = checkGcpLocal({ gcloudConfigDir: dir, env: {} });
    assert.ok(r && !r.ok);
    assert.match(r.fix, /gcloud config set project/);
    assert.match(r.fix, /GOOGLE_CLOUD_PROJECT/);
  });

  it('finds the project in env, gcloud\'s active configuration, or the ADC file', () => {
    const dir = gcloudDir('configs', {
      active_config: 'work\n',
      'configurations/config_work': '[core]\naccount = me@example.com\nproject = from-gcloud\n\n[compute]\nregion = us-central1\n',
      'configurations/config_default': '[core]\nproject = wrong-one\n',
    });
    assert.equal(localProject({ gcloudConfigDir: dir, env: {} }), 'from-gcloud');
    assert.equal(localProject({ gcloudConfigDir: dir, env: { GOOGLE_CLOUD_PROJECT: 'from-env' } }), 'from-env');
    const sa = path.join(bed.dir, 'sa.json');
    fs.writeFileSync(sa, JSON.stringify({ type: 'service_account', project_id: 'from-key', client_email: 'bot@from-key.iam.gserviceaccount.com' }));
    assert.equal(localProject({ gcloudConfigDir: gcloudDir('none', {}), env: { GOOGLE_APPLICATION_CREDENTIALS: sa } }), 'from-key');
  });

  it('working credentials: ok with the project, the account (never a key) and the region\'s zones', async () => {
    const sa = path.join(bed.dir, 'sa2.json');
    fs.writeFileSync(sa, JSON.stringify({ type: 'service_account', project_id: PROJECT, client_email: 'bot@x.iam.gserviceaccount.com', private_key: 'SECRET' }));
    const r = await checkGcp(bed.options({ project: undefined, env: { GOOGLE_APPLICATION_CREDENTIALS: sa }, region: 'us-central1' }));
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.details, { project: PROJECT, credentials: sa, account: 'bot@x.iam.gserviceaccount.com', zones: ['us-central1-a', 'us-central1-b', 'us-central1-c'] });
    assert.ok(!JSON.stringify(r).includes('SECRET'));
  });

  it('rejected credentials: not ok, kind auth, with the login command', async () => {
    const r = await checkGcp(bed.options({ authClient: new PassThroughClient() }));
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.kind === 'auth' && /application-default login/.test(r.fix));
  });
});
