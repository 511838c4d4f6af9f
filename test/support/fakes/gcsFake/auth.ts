// The client side of the fake's bearer check: a google-auth-library client that always holds
// `token` (the fake accepts "fake-token"), as test/integration/gcp/helpers.ts does for GCE —
// kept here so the storage tests do not load the Compute provider.
import { OAuth2Client } from 'google-auth-library';

export function fixedTokenClient(token = 'fake-token'): OAuth2Client {
  const c = new OAuth2Client();
  c.setCredentials({ access_token: token, expiry_date: Date.now() + 3600_000 });
  return c;
}
