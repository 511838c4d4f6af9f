"""Stops or deletes this GCE cluster through the Compute API, as the VM's own service account
(Skydeck's skydeck-autodown, whose role allows instances get/list/delete: GCP autostop without
down is an OS shutdown and never comes here). The metadata server gives the token, project,
zone and name; the head's labels name the cluster uid, which finds the workers. Workers go
first: the head's own delete ends this process."""
from urllib.parse import quote

from .httpjson import endpoint, request

UID_LABEL = 'skydeck-cluster-uid'


def _metadata(path):
    base = endpoint('SKYDECK_GCE_METADATA_URL', 'http://metadata.google.internal/computeMetadata/v1')
    _, out = request('GET', '%s/%s' % (base, path), 'metadata %s' % path,
                     headers={'Metadata-Flavor': 'Google'}, direct=True)
    return out


def stop_cluster(down, say):
    """Returns the names acted on, head last. Raises HttpError when the API refuses."""
    token = _metadata('instance/service-accounts/default/token')
    if not isinstance(token, dict) or not token.get('access_token'):
        raise ValueError('the metadata server gave no access token')
    project = str(_metadata('project/project-id')).strip()
    zone = str(_metadata('instance/zone')).strip().rsplit('/', 1)[-1]
    name = str(_metadata('instance/name')).strip()
    api = '%s/projects/%s/zones/%s/instances' % (
        endpoint('SKYDECK_GCE_API_URL', 'https://compute.googleapis.com/compute/v1'), project, zone)
    auth = {'Authorization': 'Bearer %s' % token['access_token']}
    _, me = request('GET', '%s/%s' % (api, name), 'instances.get %s' % name, headers=auth)
    uid = ((me or {}).get('labels') or {}).get(UID_LABEL)
    others = _cluster_names(api, auth, uid) if uid else []
    if not uid:
        say('the head carries no %s label: acting on the head alone' % UID_LABEL)
    targets = [n for n in others if n != name] + [name]
    for n in targets:
        if down:
            request('DELETE', '%s/%s' % (api, n), 'instances.delete %s' % n, headers=auth)
        else:
            request('POST', '%s/%s/stop' % (api, n), 'instances.stop %s' % n, headers=auth, body={})
        say('%s %s: accepted' % ('delete' if down else 'stop', n))
    return targets


def _cluster_names(api, auth, uid):
    names, token = [], None
    while True:
        url = '%s?filter=%s' % (api, quote('labels.%s = "%s"' % (UID_LABEL, uid)))
        if token:
            url += '&pageToken=%s' % quote(token)
        _, page = request('GET', url, 'instances.list', headers=auth)
        names += [i['name'] for i in (page or {}).get('items') or []]
        token = (page or {}).get('nextPageToken')
        if not token:
            return names
