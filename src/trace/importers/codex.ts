/** Placeholder: the codex importer is being written. */
export {};
