// The hover on `resources:`: the chosen candidate first, cheapest alternatives after, per node
// and for num_nodes, prices with their source; "unknown" never 0; YAML text never becomes Markdown.
import assert from 'node:assert/strict';
import { taskHoverMarkdown } from '../../../src/ui/taskYaml/hoverText';

describe('task YAML: cost hover on resources:', () => {
  it('shows the chosen type, the total for num_nodes, unknown spot and the source', () => {
    const text = 'num_nodes: 2\nresources:\n  cloud: aws\n  accelerators: V100:1\nrun: x\n';
    const h = taskHoverMarkdown(text, text.indexOf('resources') + 2);
    assert.ok(h);
    assert.match(h.markdown, /\*\*Launch picks\*\* p3\.2xlarge on aws: \$6\.12\/h for 2 nodes/);
    assert.match(h.markdown, /\| aws \| us\\-east\\-1\\\* \| p3\.2xlarge \| V100:1 \| \$3\.06\/h \| unknown \| \$6\.12\/h \|/);
    assert.match(h.markdown, /Prices: shipped table \\\(\d{4}\\-\d\d\\-\d\d\\\)/);
    assert.doesNotMatch(h.markdown, /\$0\.00/);
  });

  it('a hostile instance_type is escaped, not Markdown', () => {
    const text = 'resources:\n  cloud: aws\n  instance_type: "[x](command:workbench.action.quit)"\nrun: x\n';
    const h = taskHoverMarkdown(text, 2);
    assert.ok(!h || !/\]\(command:/.test(h.markdown), h?.markdown);
  });

  it('no hover cost on other keys', () => {
    const text = 'resources:\n  cloud: aws\nrun: x\n';
    const h = taskHoverMarkdown(text, text.indexOf('run') + 1);
    assert.ok(!h || !/Launch picks/.test(h.markdown));
  });
});
