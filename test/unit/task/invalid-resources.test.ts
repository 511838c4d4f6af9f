// Invalid `resources:` sections: exact diagnostics for each (cases in invalidResourceCases.ts).

import { checkCases } from './invalidHarness';
import { resourceCases } from './invalidResourceCases';

describe('task YAML: invalid resources', () => {
  checkCases(resourceCases);
});
