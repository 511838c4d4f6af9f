import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { ProviderError } from '../provider';
import type { AwsProviderOptions } from './options';

/**
 * One EC2 client per region, built on first use. Credentials come from the SDK's default
 * chain unless a test passes some; Skydeck stores none.
 */
export class Ec2Clients {
  private readonly byRegion = new Map<string, EC2Client>();
  private region?: Promise<string>;
  private iamClient?: IAMClient;

  constructor(private readonly opts: AwsProviderOptions) {
    // The SDK warns once per process that *future* SDK releases will need Node 22. Skydeck
    // bundles a pinned SDK, so users could act on nothing; keep their stderr (and the CLI's
    // output) clean. An explicit setting by the user wins.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  }

  get(region: string): EC2Client {
    let c = this.byRegion.get(region);
    if (!c) {
      c = new EC2Client({ ...this.base(), region });
      this.byRegion.set(region, c);
    }
    return c;
  }

  /** IAM is global: one client, signed for us-east-1 (where IAM's endpoint lives). */
  iam(): IAMClient {
    const base: { endpoint?: string } = this.base();
    delete base.endpoint; // the EC2 endpoint option is EC2's only
    this.iamClient ??= new IAMClient({ ...base, region: 'us-east-1', ...(this.opts.iamEndpoint ? { endpoint: this.opts.iamEndpoint } : {}) });
    return this.iamClient;
  }

  /** The configured region (option, then AWS_REGION / profile via the SDK's own resolution). */
  defaultRegion(): Promise<string> {
    this.region ??= this.resolveRegion();
    return this.region;
  }

  destroy(): void {
    for (const c of this.byRegion.values()) c.destroy();
    this.byRegion.clear();
    this.iamClient?.destroy();
    this.iamClient = undefined;
  }

  private async resolveRegion(): Promise<string> {
    if (this.opts.region) return this.opts.region;
    const probe = new EC2Client(this.base());
    try {
      return await probe.config.region();
    } catch {
      this.region = undefined; // let a later call see a region configured meanwhile
      throw new ProviderError('config', 'no AWS region is configured',
        'set AWS_REGION, add "region = ..." to the profile in ~/.aws/config, or name a region in the task (infra: aws/us-east-1)');
    } finally {
      probe.destroy();
    }
  }

  private base() {
    return {
      ...(this.opts.endpoint ? { endpoint: this.opts.endpoint } : {}),
      ...(this.opts.credentials ? { credentials: this.opts.credentials } : {}),
      maxAttempts: this.opts.maxAttempts ?? 3,
      // A hung connection must become a typed transient error, not a launch that never ends.
      requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
    };
  }
}
