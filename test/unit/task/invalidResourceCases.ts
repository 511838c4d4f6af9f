// Invalid `resources:` sections with the exact diagnostics expected (run by
// invalid-resources.test.ts).

import { InvalidCase } from './invalidHarness';

export const resourceCases: InvalidCase[] = [
  {
    name: 'misspelled resources field',
    text: 'resources:\n  acelerators: A100:8\n',
    expect: [
      ['error', 2, 3, 'resources.acelerators', 'unknown field "acelerators" in resources', 'did you mean "accelerators"?'],
    ],
  },
  {
    name: 'resources is a list',
    text: 'resources:\n  - cpus: 4\n',
    expect: [
      ['error', 1, 1, 'resources', 'resources must be a mapping, got a list', 'write key: value lines indented under resources:'],
    ],
  },
  {
    name: 'unknown cloud',
    text: 'resources:\n  cloud: awz\n',
    expect: [
      ['error', 2, 10, 'resources.cloud', 'resources.cloud must be a cloud name such as aws, gcp, azure, ssh or local, got "awz"', 'did you mean "aws"?'],
    ],
  },
  {
    name: 'unknown cloud in infra',
    text: 'resources:\n  infra: awz/us-east-1\n',
    expect: [
      ['error', 2, 10, 'resources.infra', 'resources.infra must be cloud[/region[/zone]], e.g. aws/us-east-1, or */region, got "awz/us-east-1"', 'did you mean "aws/us-east-1"?'],
    ],
  },
  {
    name: 'infra with cloud',
    text: 'resources:\n  cloud: aws\n  infra: aws/us-east-1\n',
    expect: [
      ['error', 3, 3, 'resources.infra', 'resources.infra cannot be combined with "cloud"', 'put everything in infra, e.g. infra: aws/us-east-1/us-east-1a'],
    ],
  },
  {
    name: 'cpus words',
    text: 'resources:\n  cpus: four\n',
    expect: [
      ['error', 2, 9, 'resources.cpus', 'resources.cpus must be a number or "<number>+", got "four"', 'e.g. cpus: 4 or cpus: 4+'],
    ],
  },
  {
    name: 'cpus zero',
    text: 'resources:\n  cpus: 0\n',
    expect: [
      ['error', 2, 9, 'resources.cpus', 'resources.cpus must be greater than 0, got 0', 'use a value greater than 0'],
    ],
  },
  {
    name: 'memory words',
    text: 'resources:\n  memory: lots\n',
    expect: [
      ['error', 2, 11, 'resources.memory', 'resources.memory must be a number of GB or a size such as 64GB, optionally followed by + for "at least", got "lots"', 'e.g. memory: 32+ or memory: 64GB'],
    ],
  },
  {
    name: 'accelerator count not a number',
    text: 'resources:\n  accelerators: A100:x\n',
    expect: [
      ['error', 2, 17, 'resources.accelerators', 'resources.accelerators must be NAME:COUNT with a positive count, got "A100:x"', 'e.g. A100, A100:8 or L4:0.25'],
    ],
  },
  {
    name: 'accelerator dict count not a number',
    text: 'resources:\n  accelerators: {A100: eight}\n',
    expect: [
      ['error', 2, 24, 'resources.accelerators.A100', 'resources.accelerators.A100 must be a count such as 8 or 0.5, or empty for 1, got "eight"', 'for example A100: 8'],
    ],
  },
  {
    name: 'accelerator with three parts',
    text: 'resources:\n  accelerators: A100:8:2\n',
    expect: [
      ['error', 2, 17, 'resources.accelerators', 'resources.accelerators with three parts must be MANUFACTURER:MEMORY:COUNT, e.g. nvidia:24GB:2, got "A100:8:2"', 'e.g. A100, A100:8 or L4:0.25'],
    ],
  },
  {
    name: 'accelerators boolean',
    text: 'resources:\n  accelerators: true\n',
    expect: [
      ['error', 2, 17, 'resources.accelerators', 'resources.accelerators must be a name with an optional count (A100, A100:8, L4:0.25), a mapping such as {A100: 8}, or a list of names, got true', 'for example accelerators: A100:8'],
    ],
  },
  {
    name: 'gpus and accelerators',
    text: 'resources:\n  gpus: A100\n  accelerators: A100\n',
    expect: [
      ['error', 2, 3, 'resources.gpus', 'resources sets both "gpus" and "accelerators"', 'gpus is another name for accelerators; keep one'],
    ],
  },
  {
    name: 'use_spot not a boolean',
    text: 'resources:\n  use_spot: maybe\n',
    expect: [
      ['error', 2, 13, 'resources.use_spot', 'resources.use_spot must be true or false, got "maybe"', 'use true or false'],
    ],
  },
  {
    name: 'negative max_restarts_on_errors',
    text: 'resources:\n  job_recovery:\n    strategy: FAILOVER\n    max_restarts_on_errors: -1\n',
    expect: [
      ['error', 4, 29, 'resources.job_recovery.max_restarts_on_errors', 'resources.job_recovery.max_restarts_on_errors must be at least 0, got -1', 'use a value of at least 0'],
    ],
  },
  {
    name: 'job_recovery and spot_recovery',
    text: 'resources:\n  job_recovery: FAILOVER\n  spot_recovery: FAILOVER\n',
    expect: [
      ['error', 3, 3, 'resources.spot_recovery', 'resources sets both "job_recovery" and "spot_recovery"', 'spot_recovery is the old name of job_recovery; keep job_recovery'],
    ],
  },
  {
    name: 'disk_size bad unit',
    text: 'resources:\n  disk_size: 100XB\n',
    expect: [
      ['error', 2, 14, 'resources.disk_size', 'resources.disk_size must be a number of GB or a size such as 100GB or 1TB, got "100XB"', 'did you mean "100GB"?'],
    ],
  },
  {
    name: 'disk_size not whole GB',
    text: 'resources:\n  disk_size: 512MB\n',
    expect: [
      ['error', 2, 14, 'resources.disk_size', 'resources.disk_size must be a whole number of GB, got "512MB"', 'round it to whole GB'],
    ],
  },
  {
    name: 'disk_tier unknown',
    text: 'resources:\n  disk_tier: fastest\n',
    expect: [
      ['error', 2, 14, 'resources.disk_tier', 'resources.disk_tier must be one of low, medium, high, ultra, best, none, got "fastest"', 'for example disk_tier: low'],
    ],
  },
  {
    name: 'port out of range',
    text: 'resources:\n  ports: 70000\n',
    expect: [
      ['error', 2, 10, 'resources.ports', 'resources.ports must be between 1 and 65535, got 70000', 'use a port between 1 and 65535 or a range such as 8000-8010'],
    ],
  },
  {
    name: 'port range reversed',
    text: 'resources:\n  ports: "9000-8000"\n',
    expect: [
      ['error', 2, 10, 'resources.ports', 'resources.ports must be a range from low to high, got 9000-8000', 'use a port between 1 and 65535 or a range such as 8000-8010'],
    ],
  },
  {
    name: 'port list item',
    text: 'resources:\n  ports: [22, abc]\n',
    expect: [
      ['error', 2, 15, 'resources.ports[1]', 'resources.ports[1] must be a port or a range such as 8000-8010, got "abc"', 'use a port between 1 and 65535 or a range such as 8000-8010'],
    ],
  },
  {
    name: 'image_id list',
    text: 'resources:\n  image_id: [a, b]\n',
    expect: [
      ['error', 2, 13, 'resources.image_id', 'resources.image_id must be an image id or a mapping of region to image id, got a list', 'for example image_id: docker:ubuntu:22.04'],
    ],
  },
  {
    name: 'label value not a string',
    text: 'resources:\n  labels:\n    team: 5\n',
    expect: [
      ['error', 3, 11, 'resources.labels.team', 'resources.labels.team must be a string, got 5', 'quote it: team: "5"'],
    ],
  },
  {
    name: 'autostop bad duration',
    text: 'resources:\n  autostop: 10x\n',
    expect: [
      ['error', 2, 13, 'resources.autostop', 'resources.autostop must be minutes or a duration such as 10m, 2h, 1d, 1w, got "10x"', 'for example autostop: 30m'],
    ],
  },
  {
    name: 'autostop misspelled key',
    text: 'resources:\n  autostop:\n    idle_minute: 10\n',
    expect: [
      ['error', 3, 5, 'resources.autostop.idle_minute', 'unknown field "idle_minute" in resources.autostop', 'did you mean "idle_minutes"?'],
    ],
  },
  {
    name: 'any_of and ordered',
    text: 'resources:\n  any_of:\n    - cloud: aws\n  ordered:\n    - cloud: gcp\n',
    expect: [
      ['error', 4, 3, 'resources.ordered', 'resources cannot have both "any_of" and "ordered"', 'use any_of when any candidate will do, or ordered for a preference order'],
    ],
  },
  {
    name: 'nested any_of',
    text: 'resources:\n  any_of:\n    - cloud: aws\n      any_of: []\n',
    expect: [
      ['error', 4, 7, 'resources.any_of[0].any_of', 'unknown field "any_of" in resources.any_of[0]', 'any_of and ordered cannot be nested'],
    ],
  },
  {
    name: 'candidate with two accelerators',
    text: 'resources:\n  any_of:\n    - accelerators: {A100: 1, V100: 1}\n',
    expect: [
      ['error', 3, 21, 'resources.any_of[0].accelerators', 'resources.any_of[0].accelerators must have at most 1 entry', 'one accelerator per candidate; add candidates for alternatives'],
    ],
  },
  {
    name: 'accelerator list with ordered',
    text: 'resources:\n  accelerators: [A100, V100]\n  ordered:\n    - cloud: aws\n',
    expect: [
      ['error', 2, 17, 'resources.accelerators', 'resources cannot list several accelerators together with "ordered"', 'move each accelerator into its own ordered candidate'],
    ],
  },
  {
    name: 'tab indentation',
    text: 'resources:\n\tcpus: 4\n',
    expect: [
      ['error', 2, 1, '', 'Tabs are not allowed as indentation', 'indent with spaces, not tabs'],
    ],
  },
  {
    name: 'priority too high',
    text: 'resources:\n  priority: 5000\n',
    expect: [
      ['warning', 2, 3, 'resources.priority', 'resources.priority is not used by Skydeck yet and will be ignored', 'it is accepted for SkyPilot compatibility; remove it to silence this warning'],
      ['error', 2, 13, 'resources.priority', 'resources.priority must be at most 1000, got 5000', 'use a value of at most 1000'],
    ],
  },
  {
    name: 'candidate cpus',
    text: 'resources:\n  cpus: 4\n  ordered:\n    - cpus: many\n',
    expect: [
      ['error', 4, 13, 'resources.ordered[0].cpus', 'resources.ordered[0].cpus must be a number or "<number>+", got "many"', 'e.g. cpus: 4 or cpus: 4+'],
    ],
  },
];
