// What a cloud says about the per-cluster identities Skydeck gives nodes (AWS: the bucket role
// and its instance profile), when their grants grow or when they are deleted.

/** The answer of a grant: whether the identity's rights changed (they then take a moment to apply). */
export interface BucketGrant {
  /** The identity that holds the grant, for messages ("IAM role skydeck-…"). */
  identity: string;
  /** False when it already allowed every bucket asked for. */
  changed: boolean;
}

/** An identity proved gone: `proof` is the call that showed it absent afterwards. */
export interface IdentityGone {
  kind: string;
  name: string;
  proof: string;
}

/** An identity that could not be deleted (yet): the sweep lists it once no row owns the cluster. */
export interface IdentityLeft {
  kind: string;
  name: string;
  why: string;
}

export interface IdentityRelease {
  gone: IdentityGone[];
  left: IdentityLeft[];
}

export interface ReleaseOptions {
  /** How long to wait for the cloud to finish terminating the instances that hold the identity. */
  timeoutMs: number;
  progress(message: string): void;
}
