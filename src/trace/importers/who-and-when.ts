/** Placeholder: the who-and-when importer is being written. */
export {};
