import * as crypto from 'node:crypto';

// An ed25519 key pair in OpenSSH's own formats, from node:crypto alone: ssh2's generator
// would pull ~330 KB (ssh2, tweetnacl, bcrypt-pbkdf) into each lazily loaded cloud bundle.
// Format: PROTOCOL.key in OpenSSH's sources (unencrypted "openssh-key-v1").

function str(b: Buffer | string): Buffer {
  const body = typeof b === 'string' ? Buffer.from(b) : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

export function generateEd25519(comment: string): { private: string; public: string } {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as { d: string; x: string };
  const seed = Buffer.from(jwk.d, 'base64url');
  const pub = Buffer.from((publicKey.export({ format: 'jwk' }) as { x: string }).x, 'base64url');
  const pubBlob = Buffer.concat([str('ssh-ed25519'), str(pub)]);
  // The same random check word twice lets a reader tell a wrong passphrase; unused here.
  const check = crypto.randomBytes(4).readUInt32BE();
  let priv = Buffer.concat([u32(check), u32(check), str('ssh-ed25519'), str(pub), str(Buffer.concat([seed, pub])), str(comment)]);
  const pad: number[] = [];
  for (let i = 1; (priv.length + pad.length) % 8 !== 0; i++) pad.push(i);
  priv = Buffer.concat([priv, Buffer.from(pad)]);
  const whole = Buffer.concat([Buffer.from('openssh-key-v1\0'), str('none'), str('none'), str(''), u32(1), str(pubBlob), str(priv)]);
  const b64 = whole.toString('base64').replace(/.{1,70}/g, '$&\n');
  return {
    private: `-----BEGIN OPENSSH PRIVATE KEY-----\n${b64}-----END OPENSSH PRIVATE KEY-----\n`,
    public: `ssh-ed25519 ${pubBlob.toString('base64')} ${comment}`,
  };
}
