import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { accountMismatch } from '../provider';
import type { Ec2Clients } from './clients';
import { ec2Call } from './errors';
import type { AwsProviderOptions } from './options';

/**
 * The AWS account the EC2 calls act in: STS GetCallerIdentity signed with the very
 * credentials the EC2 client resolved (so a profile switch is seen as the calls see it),
 * cached per access key.
 */
export class AwsIdentity {
  private readonly byKey = new Map<string, Promise<string>>();

  constructor(private readonly opts: AwsProviderOptions, private readonly clients: Ec2Clients) {}

  async current(): Promise<string> {
    // STS answers in any region; without one configured, the global partition's default.
    const region = await this.clients.defaultRegion().catch(() => 'us-east-1');
    const creds = await ec2Call('GetCallerIdentity', () => this.clients.get(region).config.credentials());
    let found = this.byKey.get(creds.accessKeyId);
    if (!found) {
      found = this.ask(region, creds);
      found.catch(() => this.byKey.delete(creds.accessKeyId)); // asked again next time
      this.byKey.set(creds.accessKeyId, found);
    }
    return found;
  }

  /** Throws the "credentials point elsewhere" error unless the current account is `account`. */
  async check(account: string | undefined): Promise<void> {
    if (!account) return;
    const cur = await this.current();
    if (cur !== account) {
      throw accountMismatch('aws', 'account', cur, account, `use credentials of account ${account} (AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) to manage this cluster`);
    }
  }

  private async ask(region: string, credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }): Promise<string> {
    const sts = new STSClient({
      region, credentials, maxAttempts: this.opts.maxAttempts ?? 3,
      ...(this.opts.stsEndpoint ? { endpoint: this.opts.stsEndpoint } : {}),
      requestHandler: { connectionTimeout: 10_000, requestTimeout: 30_000 },
    });
    try {
      const r = await ec2Call('GetCallerIdentity', () => sts.send(new GetCallerIdentityCommand({})));
      if (!r.Account) throw new Error('GetCallerIdentity answered without an account id');
      return r.Account;
    } finally {
      sts.destroy();
    }
  }
}
