// A task a cloud controller VM would refuse is refused on this machine, before the controller is
// started for it (checkControllerPlace); the VM's own refusals are in the GCP/Azure controller tests.
import assert from 'node:assert/strict';
import { checkControllerPlace, type ControllerPlace } from '../../../src/core/managed';

const gcp: ControllerPlace = { kind: 'cloud', cloud: 'gcp' };
const azure: ControllerPlace = { kind: 'cloud', cloud: 'azure', region: 'westeurope' };
const aws: ControllerPlace = { kind: 'cloud', cloud: 'aws' };
const ok = 'run: echo hi\n';
const ports = 'resources:\n  ports: 8080\nrun: echo hi\n';
const autostop = (down: boolean) => `resources:\n  autostop:\n    idle_minutes: 5\n    down: ${down}\nrun: echo hi\n`;
const refused = (place: ControllerPlace, tasks: string[], re: RegExp) => assert.throws(() => checkControllerPlace(place, tasks, {}), re);

describe('managed: what a cloud controller would refuse, checked before it starts', () => {
  it('GCP: ports (also in an any_of candidate) and autodown are refused, naming the task and the fix', () => {
    refused(gcp, [ports], /^Error: task 1 of the managed job cannot run on the gcp controller: resources\.ports: .*firewall rules.*skydeck launch/);
    refused(gcp, [ok, 'resources:\n  any_of:\n    - cpus: 2\n    - ports: [9000-9001]\nrun: x\n'], /task 2 .*resources\.ports/);
    refused(gcp, [autostop(true)], /task 1 .*autostop down: .*tears its job clusters down itself/);
    checkControllerPlace(gcp, [ok, autostop(false)], {});
  });

  it('Azure: any autostop is refused; ports are not its concern', () => {
    refused(azure, [autostop(false)], /cannot run on the azure controller: resources\.autostop: .*resource group/);
    checkControllerPlace(azure, [ports], {});
  });

  it('AWS, ssh pools, local: nothing more to refuse', () => {
    for (const place of [aws, { kind: 'ssh', pool: 'p' }, { kind: 'local-cluster' }, { kind: 'this-machine' }] as ControllerPlace[]) {
      checkControllerPlace(place, [ports, autostop(true)], {});
    }
  });

  it('a task that names another cloud is left to that cloud', () => {
    checkControllerPlace(gcp, ['resources:\n  infra: aws/us-east-1\n  ports: 8080\nrun: x\n'], {});
    refused(gcp, ['resources:\n  infra: gcp/us-central1\n  ports: 8080\nrun: x\n'], /resources\.ports/);
  });
});
