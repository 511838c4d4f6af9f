// The OAuth token endpoint a service-account key's `token_uri` names, for clients that sign in
// with a key (rclone's service_account_credentials): the JWT-bearer grant of RFC 7523 — POST
// grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<RS256 JWT signed with the
// key> — answered {access_token, expires_in, token_type} as Google's endpoint does. The
// signature is checked against the key this fake issued, so a forged key gets no token.
import { createVerify, generateKeyPairSync, randomUUID } from 'node:crypto';

export interface FakeServiceAccount {
  email: string;
  /** The key file's JSON text (type service_account), token_uri pointing at this fake. */
  keyJson: string;
}

export class TokenIssuer {
  private readonly keys = new Map<string, { publicKey: string; email: string }>();

  /** A new service account key whose tokens this fake accepts; `token(…)` hands them out. */
  issueKey(project: string, tokenUri: string, email = `skydeck-test@${project}.iam.gserviceaccount.com`): FakeServiceAccount {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const id = randomUUID().replace(/-/g, '');
    this.keys.set(id, { publicKey, email });
    const keyJson = JSON.stringify({
      type: 'service_account', project_id: project, private_key_id: id, private_key: privateKey, client_email: email,
      client_id: '100000000000000000001', auth_uri: 'https://accounts.google.com/o/oauth2/auth', token_uri: tokenUri,
    });
    return { email, keyJson };
  }

  /** The answer to a token request (form body), or an OAuth error as Google's endpoint words it. */
  token(form: URLSearchParams): { status: number; body: Record<string, unknown>; token?: string } {
    const bad = (d: string) => ({ status: 400, body: { error: 'invalid_grant', error_description: d } });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' } };
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return bad('Invalid JWT');
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as { kid?: string; alg?: string };
    const key = header.kid ? this.keys.get(header.kid) : [...this.keys.values()][0];
    if (!key || header.alg !== 'RS256') return bad('Invalid JWT Signature.');
    const ok = createVerify('RSA-SHA256').update(`${parts[0]}.${parts[1]}`).verify(key.publicKey, Buffer.from(parts[2], 'base64url'));
    if (!ok) return bad('Invalid JWT Signature.');
    const token = `ya29.fake-${randomUUID()}`;
    return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer' }, token };
  }
}
