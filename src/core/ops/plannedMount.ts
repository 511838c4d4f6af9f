// One bucket mount as planned for a cluster's nodes (bucketPlan.ts), shared by the steps that
// refine the plan (s3Regions.ts, bucketGrant.ts) without importing the planner.
import type { NodeMount, StoreAccess } from '../storage';

export interface PlannedMount {
  mount: NodeMount;
  access: StoreAccess;
  /** Set when the user's own credentials go to the node, e.g. "AWS". */
  shared?: string;
  /** S3: the bucket did not exist when its region was looked up (s3Regions.ts); ask again once it does. */
  regionPending?: boolean;
  /** The node's identity was just widened to this bucket (bucketGrant.ts): a refusal may be IAM catching up. */
  justGranted?: boolean;
}
