import { ListRolesCommand, type IAMClient, type Role } from '@aws-sdk/client-iam';
import { TAG_UID, type TaggedIdentity } from '../provider';
import { boundedMap } from '../boundedMap';
import { ec2Call } from './errors';
import { IAM_PATH, profileNameOf } from './bucketPolicy';
import { getRole, ROLE_KIND } from './bucketRole';

/**
 * Skydeck's per-cluster roles: those under Skydeck's IAM path that carry a cluster uid tag and
 * the name Skydeck gives that uid's role (ListRoles returns no tags, so each is read). The sweep
 * compares them with the rows; a delete goes by the uid, so a role of another name would be
 * listed, never deleted, and "already gone" said of it.
 */
export async function listBucketRoles(iam: IAMClient): Promise<TaggedIdentity[]> {
  const roles: Role[] = [];
  let Marker: string | undefined;
  do {
    const page = await ec2Call('iam:ListRoles', () => iam.send(new ListRolesCommand({ PathPrefix: IAM_PATH, Marker })));
    roles.push(...(page.Roles ?? []));
    Marker = page.IsTruncated ? page.Marker : undefined;
  } while (Marker);
  // A role deleted between the list and the read (a down finishing) is simply gone.
  const full = await boundedMap(roles, 4, (r) => getRole(iam, r.RoleName!));
  return full.flatMap((r) => {
    const tags = Object.fromEntries((r?.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
    return r?.RoleName && tags[TAG_UID] && r.RoleName === profileNameOf(tags[TAG_UID]) ? [{ kind: ROLE_KIND, name: r.RoleName, tags }] : [];
  });
}
