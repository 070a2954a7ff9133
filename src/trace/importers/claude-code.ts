/** Placeholder: the claude-code importer is being written. */
export {};
