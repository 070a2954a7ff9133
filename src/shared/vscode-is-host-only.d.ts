// What `import ... from 'vscode'` finds in every layer but the host (tsconfig.base.json's `paths`):
// a module with no exports, so any name imported from it is a compile error. Only src/host/ may use
// the VS Code API.
export {};
