// The Compute Engine v1 REST shapes Skydeck reads and writes, only the fields it uses, named as
// the discovery doc names them (https://compute.googleapis.com/$discovery/rest?version=v1,
// `schemas`). Every field may be absent in an answer: GCE omits empty and default values.

/** Operation.error.errors[] (code, message, errorDetails[] of ErrorDetails). */
export interface OperationErrorItem {
  code?: string;
  message?: string;
  errorDetails?: { errorInfo?: { reason?: string } }[];
}

/** Operation (zonal, regional or global: the scope is named by `zone` / `region`, a URL). */
export interface Operation {
  name?: string;
  zone?: string;
  region?: string;
  /** PENDING, RUNNING or DONE. */
  status?: string;
  error?: { errors?: OperationErrorItem[] };
  httpErrorStatusCode?: number;
}

export interface MetadataItem { key?: string; value?: string }

export interface AccessConfig { name?: string; type?: string; natIP?: string }

/** Instance, as read back. */
export interface Instance {
  name?: string;
  status?: string;
  zone?: string;
  machineType?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  metadata?: { items?: MetadataItem[] };
  guestAccelerators?: { acceleratorType?: string; acceleratorCount?: number }[];
  networkInterfaces?: { network?: string; networkIP?: string; accessConfigs?: AccessConfig[] }[];
  serviceAccounts?: { email?: string; scopes?: string[] }[];
}

/** The Instance resource of an instances.insert: what Skydeck sets. */
export interface NewInstance extends Instance {
  name: string;
  tags?: { items?: string[] };
  disks?: {
    boot?: boolean; autoDelete?: boolean; type?: string;
    /** diskSizeGb is an int64: JSON carries it as a decimal string (discovery doc `format: int64`). */
    initializeParams?: { sourceImage?: string; diskSizeGb?: string; diskType?: string; labels?: Record<string, string> };
  }[];
  scheduling?: { provisioningModel?: string; instanceTerminationAction?: string; onHostMaintenance?: string; automaticRestart?: boolean };
}

export interface FirewallAllowed { IPProtocol?: string; ports?: string[] }

export interface Firewall {
  name?: string;
  network?: string;
  direction?: string;
  priority?: number;
  targetTags?: string[];
  /** Instances running as one of these accounts (never together with tags in one rule). */
  targetServiceAccounts?: string[];
  sourceTags?: string[];
  sourceServiceAccounts?: string[];
  sourceRanges?: string[];
  disabled?: boolean;
  allowed?: FirewallAllowed[];
  description?: string;
}

/** Zone; `status` is UP or DOWN. */
export interface Zone { name?: string; status?: string }

export interface MachineType {
  name?: string;
  guestCpus?: number;
  memoryMb?: number;
  deprecated?: { state?: string };
  accelerators?: { guestAcceleratorType?: string; guestAcceleratorCount?: number }[];
}

/** One page of a list method (`items`, and `nextPageToken` while more remain). */
export interface ListPage<T> {
  items?: T[];
  nextPageToken?: string;
}

/** InstancesScopedList: a scope's instances, or a warning (NO_RESULTS_ON_PAGE, UNREACHABLE) instead. */
export interface InstancesScopedList {
  instances?: Instance[];
  warning?: { code?: string; message?: string };
}

/** One page of instances.aggregatedList: scopes ("zones/us-central1-a") to their lists. */
export interface AggregatedPage {
  items?: Record<string, InstancesScopedList>;
  nextPageToken?: string;
}

/**
 * An error answer of a Google API (AIP-193; google.rpc.Status over HTTP/JSON). Compute adds the
 * legacy errors[] list; details[] holds google.protobuf.Any values, ErrorInfo among them.
 */
export interface ErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    errors?: { reason?: string; domain?: string; message?: string }[];
    details?: { '@type'?: string; reason?: string; domain?: string; metadata?: Record<string, string> }[];
  };
}
