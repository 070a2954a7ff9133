/** Placeholder: the mast importer is being written. */
export {};
