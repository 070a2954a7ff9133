/** SVG export escapes trace text: it is a new place where untrusted text lands. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeXml } from '../../../webview/export';

test('trace text is XML-escaped in the SVG export', () => {
  assert.equal(escapeXml(`<script>alert("x")</script> & 'y'`), '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;y&apos;');
});
