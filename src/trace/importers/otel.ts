/** Placeholder: the otel importer is being written. */
export {};
