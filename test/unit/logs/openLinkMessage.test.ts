import assert from 'node:assert/strict';
import { isPageMessage, isWebUrl } from '../../../src/ui/logs/protocol';

describe('issue 13.9: the host accepts only web links from the log page', () => {
  it('issue 13.9: openLink with command:, file:, vscode: or javascript: is not a valid page message', () => {
    for (const url of ['command:workbench.action.quit', 'file:///etc/passwd', 'vscode://x/y', 'javascript:alert(1)', 'https://', `https://a.example/${'x'.repeat(3000)}`, 'not a url']) {
      assert.equal(isPageMessage({ type: 'openLink', url }), false, url);
      assert.equal(isWebUrl(url), false, url);
    }
    for (const url of ['https://example.com/a?b=1', 'http://127.0.0.1:8080/']) assert.equal(isPageMessage({ type: 'openLink', url }), true, url);
    assert.equal(isPageMessage({ type: 'openLink', url: 42 }), false);
  });
});
