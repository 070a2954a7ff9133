/** SVG export escapes trace text: it is a new place where untrusted text lands. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeXml } from '../../../webview/export';

test('trace text is XML-escaped in the SVG export', () => {
  assert.equal(escapeXml(`<script>alert("x")</script> & 'y'`), '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;y&apos;');
});

/** XML 1.0's `Char` production: what a well-formed document may hold. */
const XML_CHAR = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;

test('the SVG export writes only characters XML allows: NUL and other controls, bidi, U+FFFF and lone surrogates are shown as ⟨U+…⟩', () => {
  const hostile = `a\u0000b\u0007c\u001b[31md\u0085e\u009bf\u202Eg\u202Ch\uffffi\ud800j\udc00k😀l\u2066m`;
  const out = escapeXml(hostile);
  assert.match(out, XML_CHAR, 'only XML characters');
  assert.equal(out, 'a⟨U+0000⟩b⟨U+0007⟩c⟨U+001B⟩[31md⟨U+0085⟩e⟨U+009B⟩f⟨U+202E⟩g⟨U+202C⟩h⟨U+FFFF⟩i⟨U+D800⟩j⟨U+DC00⟩k😀l⟨U+2066⟩m');
  assert.equal(escapeXml('tab\tand\nnewline'), 'tab\tand\nnewline', 'tab and newlines are XML characters: kept');
});
