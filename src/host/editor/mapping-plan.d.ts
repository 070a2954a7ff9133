/** The values of `otrace.mappings` by where they are set (from `inspect()`). */
export interface MappingSettingValues {
    /** The user's (global) value. */
    user?: unknown;
    /** The workspace's value (a workspace folder's `.vscode/settings.json`, or the `.code-workspace` file). */
    workspace?: unknown;
}
/** What the plan is made from. */
export interface MappingPlanInput {
    setting: MappingSettingValues;
    /** File system paths of the workspace folders (file scheme only). */
    folders: readonly string[];
    /** `vscode.workspace.isTrusted`. */
    trusted: boolean;
    /** The `*.otrace-map.json` files found in the workspace (file system paths). */
    found: readonly string[];
    /** The home folder (`~` in a user setting). */
    home: string;
    /** True when a path is open in an editor (it counts as existing when a relative setting value is resolved). */
    isOpen?: (file: string) => boolean;
}
/** A mapping file to read, how it is named, and where it applies. */
export interface PlannedMapping {
    file: string;
    origin: 'setting' | 'workspace';
    /** The setting's glob (setting origin only). */
    glob?: string;
    /** Real paths of the folders whose trace files it may read; undefined: any trace file (the user's setting). */
    within?: string[];
}
/** A setting entry not used, and why (shown to the user in one message). */
export interface RefusedEntry {
    glob: string;
    scope: 'user' | 'workspace';
    /** `outside`: a workspace value names a file outside the workspace; `glob`: the glob is refused (`detail` says why). */
    reason: 'outside' | 'glob';
    detail?: string;
}
/** The plan: what to read, and what was left out. */
export interface MappingPlan {
    /** In precedence order: setting entries in the setting's order, then workspace files by path. */
    read: PlannedMapping[];
    /** Found workspace mapping files that are symbolic links to a file outside the workspace (not read; shown on the link). */
    outside: string[];
    refused: RefusedEntry[];
    /** Set in restricted mode when the workspace had mapping files or values of otrace.mappings that are not used. */
    restricted?: {
        files: number;
        settings: number;
    };
}
/**
 * Decides which mapping files to read. Touches the file system only to resolve paths (never a
 * path a workspace value names outside the workspace folders, not even to ask if it exists).
 */
export declare function planMappings(input: MappingPlanInput): MappingPlan;
