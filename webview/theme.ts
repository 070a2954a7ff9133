/**
 * Colors: VS Code's theme variables for the chrome, and the Okabe–Ito palette (Okabe & Ito 2008,
 * "Color Universal Design", safe for the common colour-vision deficiencies) for the seven event
 * categories, so that every mark stays distinguishable in any theme.
 */

/** The value of a `--vscode-*` color variable, or `fallback` when the theme does not define it. */
export function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(`--vscode-${name}`).trim();
  return v || fallback;
}

/** The Okabe–Ito colours by name. */
export const OKABE_ITO = {
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
} as const;

/** The seven event categories, each one Okabe–Ito colour, with the event types they hold. */
export const CATEGORIES: { name: string; color: string; kinds: string[] }[] = [
  { name: 'spawn', color: OKABE_ITO.reddishPurple, kinds: ['spawn', 'despawn'] },
  { name: 'delegate', color: OKABE_ITO.blue, kinds: ['delegate'] },
  { name: 'message', color: OKABE_ITO.skyBlue, kinds: ['message'] },
  { name: 'tool call', color: OKABE_ITO.orange, kinds: ['tool_call', 'tool_result'] },
  { name: 'return', color: OKABE_ITO.bluishGreen, kinds: ['return'] },
  { name: 'reward / aggregate', color: OKABE_ITO.yellow, kinds: ['reward', 'aggregate'] },
  { name: 'stop / safety', color: OKABE_ITO.vermillion, kinds: ['stop', 'safety_event'] },
];

/** Node fill colour per canonical event type; decisions and human interventions take the theme's neutral foreground. */
export function kindColors(): Record<string, string> {
  const neutral = themeColor('descriptionForeground', '#9d9d9d');
  const out: Record<string, string> = { orchestrator_decision: neutral, human_intervention: neutral };
  for (const c of CATEGORIES) for (const k of c.kinds) out[k] = c.color;
  return out;
}

/** True when the active theme is a light one (VS Code sets the class on <body>). */
export function isLightTheme(): boolean {
  return document.body.classList.contains('vscode-light') || document.body.classList.contains('vscode-high-contrast-light');
}
