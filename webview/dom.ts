/** The page's elements by id (webview/index in graph-html.ts makes them). */
export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
