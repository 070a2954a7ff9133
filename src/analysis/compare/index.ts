/**
 * Comparing runs (issue 28): two runs of one task aligned event by event (`compareRuns`), and many
 * runs of one task grouped by where they leave each other (`groupRuns`). Pure: no `vscode`; runs in
 * the CLI and the engine. Method: docs/analysis.md, section 5c.
 */
export * from './types';
export { compareRuns, comparison, type ComparedRun } from './compare-runs';
export { alignRuns, type RunAlignment } from './align-runs';
export { Interner } from './fingerprints';
export { comparableContent, toolFamily } from './normalize';
export { pairAgents, type AgentPairing, type PairedBy } from './pairing';
export { groupRuns, type GroupRun, type RunCluster, type RunGroups } from './group';
