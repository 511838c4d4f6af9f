// ARM error bodies as Azure sends them: {error:{code,message[,target]}}.

export class ArmError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly target?: string) {
    super(message);
  }

  body(): unknown {
    return { error: { code: this.code, message: this.message, ...(this.target ? { target: this.target } : {}) } };
  }
}

export const groupNotFound = (rg: string) => new ArmError(404, 'ResourceGroupNotFound', `Resource group '${rg}' could not be found.`);
export const resourceNotFound = (type: string, name: string, rg: string) =>
  new ArmError(404, 'ResourceNotFound', `The Resource '${type}/${name}' under resource group '${rg}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`);
export const groupBeingDeleted = (rg: string) =>
  new ArmError(409, 'ResourceGroupBeingDeleted', `The resource group '${rg}' is in deprovisioning state and cannot perform this operation.`);
export const missingAuth = () => new ArmError(401, 'AuthenticationFailed', "Authentication failed. The 'Authorization' header is missing.");
export const authorizationFailed = (action: string, scope: string) => new ArmError(403, 'AuthorizationFailed',
  `The client 'tester@example.com' with object id '00000000-0000-0000-0000-0000000000aa' does not have authorization to perform action '${action}' over scope '${scope}' or the scope is invalid. If access was recently granted, please refresh your credentials.`);
export const skuNotAvailable = (size: string, location: string) => new ArmError(409, 'SkuNotAvailable',
  `The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: ${size}' is currently not available in location '${location}'. Please try another size or deploy to a different location or zones. See https://aka.ms/azureskunotavailable for details.`);
export const invalidSize = (size: string) => new ArmError(400, 'InvalidParameter',
  `The value ${size} provided for the VM size is not valid. The valid sizes in the current region are: Standard_B1s,Standard_D2s_v5,...`, 'vmSize');
export const imageNotFound = (urn: string) => new ArmError(404, 'PlatformImageNotFound',
  `The platform image '${urn}' is not available. Verify that all fields in the storage profile are correct. For more details about storage profile information, please refer to https://aka.ms/storageprofile`, 'imageReference');
export const quotaExceeded = (family: string, location: string, limit: number, usage: number, want: number) => new ArmError(409, 'OperationNotAllowed',
  `Operation could not be completed as it results in exceeding approved ${family} Cores quota. Additional details - Deployment Model: Resource Manager, Location: ${location}, Current Limit: ${limit}, Current Usage: ${usage}, Additional Required: ${want}, (Minimum) New Limit Required: ${usage + want}. Setup Alerts when Quota reaches threshold. Learn more at https://aka.ms/quotamonitoringalerting .`);
export const badReference = (ref: string, by: string) => new ArmError(400, 'InvalidResourceReference', `Resource ${ref} referenced by resource ${by} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.`);
export const throttled = () => new ArmError(429, 'TooManyRequests', 'The request is being throttled as the limit has been reached for operation type - Read_ObservationWindow_00:05:00.');

/** The error a failed long-running operation reports in its status body. */
export const allocationFailed = { code: 'AllocationFailed', message: 'Allocation failed. We do not have sufficient capacity for the requested VM size in this region. Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance' };
