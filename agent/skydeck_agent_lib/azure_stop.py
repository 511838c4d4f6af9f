"""Deallocates or deletes this Azure cluster through ARM, as the head VM's system-assigned
managed identity (Skydeck gave it a role on the cluster's resource group only). A shut-down
VM keeps billing until deallocated, so the OS shutdown cannot do this. Instance metadata gives
the token, subscription, group and name. Autodown deletes the group: one call, nothing left."""
from urllib.parse import quote

from .httpjson import endpoint, request

ARM = 'https://management.azure.com'
COMPUTE_API = '2024-07-01'
GROUPS_API = '2021-04-01'


def _imds(path):
    base = endpoint('SKYDECK_AZURE_IMDS_URL', 'http://169.254.169.254/metadata')
    _, out = request('GET', '%s/%s' % (base, path), 'instance metadata %s' % path.split('?')[0],
                     headers={'Metadata': 'true'}, direct=True)
    return out


def stop_cluster(down, say):
    token = _imds('identity/oauth2/token?api-version=2018-02-01&resource=%s' % quote(ARM + '/', safe=''))
    if not isinstance(token, dict) or not token.get('access_token'):
        raise ValueError('instance metadata gave no managed-identity token')
    me = _imds('instance/compute?api-version=2021-02-01')
    arm = endpoint('SKYDECK_ARM_URL', ARM)
    group = '%s/subscriptions/%s/resourceGroups/%s' % (arm, me['subscriptionId'], me['resourceGroupName'])
    auth = {'Authorization': 'Bearer %s' % token['access_token']}
    if down:
        request('DELETE', '%s?api-version=%s' % (group, GROUPS_API), 'resourceGroups.delete', headers=auth)
        say('delete resource group %s: accepted' % me['resourceGroupName'])
        return [me['resourceGroupName']]
    names = []
    url = '%s/providers/Microsoft.Compute/virtualMachines?api-version=%s' % (group, COMPUTE_API)
    while url:
        _, page = request('GET', url, 'virtualMachines.list', headers=auth)
        names += [vm['name'] for vm in (page or {}).get('value') or []]
        url = (page or {}).get('nextLink')
    targets = [n for n in names if n != me['name']] + [me['name']]
    for n in targets:
        request('POST', '%s/providers/Microsoft.Compute/virtualMachines/%s/deallocate?api-version=%s'
                % (group, n, COMPUTE_API), 'virtualMachines.deallocate %s' % n, headers=auth)
        say('deallocate %s: accepted' % n)
    return targets
