// "Check Clouds" for Azure: plainly missing credentials or subscription are reported with the
// exact fix and no network call; with both present one resource-group listing proves them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkAzure, checkAzureLocal } from '../../../src/core/clouds/azure';
import { credentialSource, localSubscription } from '../../../src/core/clouds/azure/subscription';
import { startAzureBed, type AzureBed } from './helpers';

describe('azure: credential check', function () {
  this.timeout(20_000);
  let bed: AzureBed;
  before(async function () {
    bed = await startAzureBed(this);
  });
  after(async () => bed?.close());

  function cliDir(name: string, profile?: unknown): string {
    const dir = path.join(bed.dir, name);
    fs.mkdirSync(dir, { recursive: true });
    // The Azure CLI writes this file with a byte-order mark.
    if (profile) fs.writeFileSync(path.join(dir, 'azureProfile.json'), `\uFEFF${JSON.stringify(profile)}`);
    return dir;
  }

  it('nothing configured: says "az login", without a call', async () => {
    const seen = bed.fake.model.calls.length;
    const r = await checkAzure({ azureConfigDir: cliDir('empty'), env: {}, endpoint: bed.fake.endpoint, ca: bed.ca });
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.fix, 'az login');
    assert.equal(bed.fake.model.calls.length, seen);
  });

  it('a service principal in env but no subscription: says how to set one', () => {
    const r = checkAzureLocal({ azureConfigDir: cliDir('none'), env: { AZURE_CLIENT_ID: 'a', AZURE_TENANT_ID: 't', AZURE_CLIENT_SECRET: 'SECRET' } });
    assert.ok(r && !r.ok);
    assert.match(r.fix, /AZURE_SUBSCRIPTION_ID/);
    assert.ok(!JSON.stringify(r).includes('SECRET'));
  });

  it('finds the subscription in env or the CLI\'s default, and names the CLI account', () => {
    const dir = cliDir('cli', { subscriptions: [
      { id: 'sub-other', isDefault: false, user: { name: 'me@example.com' } },
      { id: 'sub-default', isDefault: true, user: { name: 'me@example.com' } },
    ] });
    assert.equal(localSubscription({ azureConfigDir: dir, env: {} }), 'sub-default');
    assert.equal(localSubscription({ azureConfigDir: dir, env: { AZURE_SUBSCRIPTION_ID: 'sub-env' } }), 'sub-env');
    assert.equal(credentialSource({ azureConfigDir: dir, env: {} }), 'Azure CLI (me@example.com)');
  });

  it('working credentials: ok with the subscription', async () => {
    await bed.provider().runInstances((await import('./helpers')).runRequest());
    const r = await checkAzure(bed.options());
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.details.subscriptionId, bed.fake.model.subscription);
    assert.ok(r.details.resourceGroups >= 1);
  });

  it('rejected credentials: not ok, kind auth, with the login command', async () => {
    const r = await checkAzure(bed.options({ credential: { getToken: async () => ({ token: '', expiresOnTimestamp: Date.now() + 60_000 }) } }));
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.kind === 'auth' && /az login/.test(r.fix));
  });
});
