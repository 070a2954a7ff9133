/**
 * `otrace open PATH`: opens a trace (or a folder's newest trace) with its graph. With a desktop
 * `code` on PATH it hands VS Code the otrace extension's `vscode://otrace.otrace/open?path=…` link;
 * otherwise it prints the `npm start -- PATH` line that opens it in the project's own VS Code.
 * It installs nothing.
 */
import { spawnSync } from 'node:child_process';
import { OPEN_REQUEST_PATH, openTarget, OpenTargetError, resolveArg } from '../engine/open-target';
import { type Command, safePath, terminalLine } from './common';

/** The link the extension's URI handler (src/host/open-uri.ts) opens. */
export function openUri(file: string): string {
  return `vscode://otrace.otrace${OPEN_REQUEST_PATH}?path=${encodeURIComponent(file)}`;
}

/** `arg` quoted for a POSIX shell when it needs it. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function hasDesktopCode(): boolean {
  return spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** The `open` command: see the module comment. */
export const open: Command = {
  usage: 'otrace open PATH',
  run(args) {
    if (args.length !== 1 || args[0].startsWith('-')) {
      process.stderr.write('otrace: open takes one PATH (a trace file or a folder)\n');
      return 2;
    }
    const target = resolveArg(args[0], process.cwd());
    let trace: string;
    try {
      trace = openTarget(target).trace;
    } catch (err) {
      if (!(err instanceof OpenTargetError)) throw err;
      process.stderr.write(`otrace: ${terminalLine(err.message)}\n`);
      return 2;
    }
    if (hasDesktopCode()) {
      const r = spawnSync('code', ['--open-url', openUri(trace)], { stdio: 'inherit' });
      if (r.status === 0) {
        process.stdout.write(`opening ${safePath(trace)} in VS Code (the otrace extension must be installed there)\n`);
        return 0;
      }
    }
    process.stdout.write(`No desktop VS Code (\`code\`) on PATH. In the otrace folder run:\n\n  npm start -- ${shellQuote(target)}\n`);
    return 0;
  },
};
