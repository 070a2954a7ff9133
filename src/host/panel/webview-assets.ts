/**
 * The graph webview's script and style, read from dist/ to be inlined into its HTML. Loading them
 * as resources goes through the webview's service worker and the workbench's file service (on a
 * remote or code-server, over the connection), which took 1.5–2 s of a 3–4 s start; inline, they
 * arrive with the HTML. Read once and again only when the build changed them (`npm run watch`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The bundle's text, ready to sit inside `<script>` and `<style>` elements. */
export interface WebviewAssets {
  script: string;
  style: string;
}

let cached: { key: string; assets: WebviewAssets } | undefined;

/**
 * The webview bundle in `distDir` (webview.js, webview.css), or undefined when it cannot be read
 * or could end its element early (the HTML then loads the files instead). `sourceMapUrl` turns
 * the file's relative source-map comment into one the webview can resolve (for its developer tools).
 */
export function webviewAssets(distDir: string, sourceMapUrl: (file: string) => string): WebviewAssets | undefined {
  const js = path.join(distDir, 'webview.js');
  const css = path.join(distDir, 'webview.css');
  try {
    const key = [js, css].map((f) => `${f}:${fs.statSync(f).mtimeMs}`).join('|');
    if (cached?.key !== key) cached = { key, assets: readAssets(js, css, sourceMapUrl) };
    return cached.assets.script ? cached.assets : undefined;
  } catch {
    return undefined;
  }
}

function readAssets(js: string, css: string, sourceMapUrl: (file: string) => string): WebviewAssets {
  const mapped = (text: string, comment: RegExp) => text.replace(comment, (line, file: string) => line.replace(file, sourceMapUrl(file)));
  const script = mapped(fs.readFileSync(js, 'utf8'), /\/\/# sourceMappingURL=([\w.-]+)\s*$/);
  const style = mapped(fs.readFileSync(css, 'utf8'), /\/\*# sourceMappingURL=([\w.-]+) \*\/\s*$/);
  // esbuild escapes "</script" in the bundle's strings; if some text still held it (or "</style"), inlining would cut the element short.
  if (/<\/script/i.test(script) || /<\/style/i.test(style)) return { script: '', style: '' };
  return { script, style };
}
