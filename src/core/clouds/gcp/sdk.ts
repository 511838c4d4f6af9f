// The Compute clients Skydeck uses, imported by their own paths: the package's index also
// loads the v1beta clients and build/protos/protos.js (21 MB of static protobuf classes that
// the REST transport never uses), which would make the lazily loaded GCP bundle ~30 MB.
export { InstancesClient } from '@google-cloud/compute/build/src/v1/instances_client';
export { ZoneOperationsClient } from '@google-cloud/compute/build/src/v1/zone_operations_client';
export { GlobalOperationsClient } from '@google-cloud/compute/build/src/v1/global_operations_client';
export { FirewallsClient } from '@google-cloud/compute/build/src/v1/firewalls_client';
export { ZonesClient } from '@google-cloud/compute/build/src/v1/zones_client';
