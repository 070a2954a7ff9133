/** Colors from the active VS Code theme (CSS variables VS Code sets on the webview's <html>). */

/** The value of a `--vscode-*` color variable, or `fallback` when the theme does not define it. */
export function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(`--vscode-${name}`).trim();
  return v || fallback;
}

/** Node fill color per canonical event type. */
export function kindColors(): Record<string, string> {
  return {
    orchestrator_decision: themeColor('charts-foreground', '#cccccc'),
    spawn: themeColor('charts-purple', '#b180d7'),
    despawn: themeColor('charts-purple', '#b180d7'),
    delegate: themeColor('charts-blue', '#3794ff'),
    message: themeColor('charts-blue', '#3794ff'),
    tool_call: themeColor('charts-orange', '#d18616'),
    tool_result: themeColor('charts-yellow', '#cca700'),
    return: themeColor('charts-green', '#89d185'),
    aggregate: themeColor('charts-green', '#89d185'),
    reward: themeColor('charts-yellow', '#cca700'),
    stop: themeColor('charts-red', '#f14c4c'),
    human_intervention: themeColor('charts-foreground', '#cccccc'),
    safety_event: themeColor('charts-red', '#f14c4c'),
  };
}
