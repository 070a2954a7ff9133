/**
 * A hostile file name in every notification otrace can show, in a real VS Code: a trace saved as
 * `[Open the prompt](command:…) $(bug).otrace.jsonl`. Notifications render Markdown links and
 * icons, and once a click on such a name ran the command it named. Each message must show the
 * name as plain text, and a click on it must run nothing. A control notification with a real
 * link, clicked the same way, proves the clicks reach links (so the test can fail).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import { evalInPage } from './bridge';
import { until } from './wait';

const MARKER = 'otraceTest.hostileLinkRan';
const CONTROL = 'otraceTest.controlLinkRan';
const NAME = `[Open the prompt](command:${MARKER}) $(bug)`;

interface Shown {
  /** the notification messages that show the hostile name */
  texts: string[];
  /** links and icons rendered inside those messages */
  links: number;
  icons: number;
}

/** The notification messages (list open) that mention `needle`, with what they render. */
function notificationsWith(needle: string): Promise<Shown> {
  return evalInPage<Shown>(`() => {
    const items = [...document.querySelectorAll('.notification-list-item')].filter((n) => n.textContent.includes(${JSON.stringify(needle)}));
    const messages = items.map((n) => n.querySelector('.notification-list-item-message')).filter(Boolean);
    return {
      texts: messages.map((m) => m.textContent),
      links: messages.reduce((k, m) => k + m.querySelectorAll('a').length, 0),
      icons: messages.reduce((k, m) => k + m.querySelectorAll('.codicon').length, 0),
    };
  }`);
}

/** Clicks every link, and the text, of the notification messages that mention `needle`; answers how many clicks. */
function clickMessages(needle: string): Promise<number> {
  return evalInPage<number>(`() => {
    let clicks = 0;
    for (const n of document.querySelectorAll('.notification-list-item')) {
      if (!n.textContent.includes(${JSON.stringify(needle)})) continue;
      const m = n.querySelector('.notification-list-item-message');
      if (!m) continue;
      for (const el of [m, ...m.querySelectorAll('a, span')]) {
        el.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
        el.click();
        clicks++;
      }
    }
    return clicks;
  }`);
}

describe('untrusted file names in notifications', function () {
  this.timeout(180_000);
  let api: OtraceApi;
  let dir: string;
  let hostileRuns = 0;
  let controlRuns = 0;
  const registered: vscode.Disposable[] = [];

  const WORKSPACE = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const settingsFolderExisted = fs.existsSync(path.join(WORKSPACE, '.vscode'));

  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    registered.push(
      vscode.commands.registerCommand(MARKER, () => void hostileRuns++),
      vscode.commands.registerCommand(CONTROL, () => void controlRuns++),
    );
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-hostile-'));
    await vscode.commands.executeCommand('notifications.clearAll');
  });
  after(async () => {
    for (const d of registered) d.dispose();
    await vscode.workspace.getConfiguration('otrace').update('mappings', undefined, vscode.ConfigurationTarget.Workspace);
    if (!settingsFolderExisted) fs.rmSync(path.join(WORKSPACE, '.vscode'), { recursive: true, force: true });
    await api.mappings.refresh();
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the name as text in every notification, and a click on it runs nothing', async () => {
    // 1. Go to Source Prompt on an event with no source, and on one whose source file is missing
    const trace = path.join(dir, `${NAME}.otrace.jsonl`);
    fs.writeFileSync(
      trace,
      [
        { id: 'e1', t: 0, type: 'message', agent: 'worker', content: 'no source, no prompt before it' },
        { id: 'e2', t: 1, type: 'message', agent: 'worker', content: 'a missing source', source: { path: `${NAME}.md` } },
      ].map((e) => JSON.stringify(e)).join('\n') + '\n',
    );
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(trace), { preview: false });
    await api.sessions.forDocument(editor.document);
    for (const line of [0, 1]) {
      editor.selection = new vscode.Selection(line, 3, line, 3);
      await vscode.commands.executeCommand('otrace.goToSourcePrompt');
    }
    // 2. the URI handler refuses a file that is not a trace
    const notTrace = path.join(dir, `${NAME}.txt`);
    fs.writeFileSync(notTrace, 'hello\n');
    await api.openUri(vscode.Uri.from({ scheme: vscode.env.uriScheme, authority: 'otrace.otrace', path: '/open', query: `path=${notTrace}` }));
    // 3. a trace over 50 MB: the notice offers the graph
    const large = path.join(dir, `${NAME} large.otrace.jsonl`);
    const fd = fs.openSync(large, 'w');
    const record = (i: number) => JSON.stringify({ id: `e${i}`, t: i, type: 'message', agent: 'a', content: 'x'.repeat(2000) }) + '\n';
    for (let i = 0, size = 0; size <= 51 * 1024 * 1024; i++) size += fs.writeSync(fd, record(i));
    fs.closeSync(fd);
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(large));
    // 4. a workspace otrace.mappings entry whose glob is the name, pointing outside the workspace: refused
    await vscode.workspace.getConfiguration('otrace').update('mappings', { [`**/${NAME}*.jsonl`]: '/etc/passwd' }, vscode.ConfigurationTarget.Workspace);
    await api.mappings.refresh();

    await vscode.commands.executeCommand('notifications.showList');
    const shown = await until('five notifications naming the file', async () => {
      const s = await notificationsWith('Open the prompt');
      return s.texts.length >= 5 ? s : undefined;
    }, 60_000);
    const all = shown.texts.join(' | ');
    assert.match(all, /names no source prompt/, all);
    assert.match(all, /does not exist/, all);
    assert.match(all, /not a trace/, all);
    assert.match(all, /too large for the text editor/, all);
    assert.match(all, /otrace\.mappings entry .* is not used/, all);
    assert.equal(shown.links, 0, `a notification renders the name as a link: ${all}`);
    assert.equal(shown.icons, 0, `a notification renders $(bug) as an icon: ${all}`);
    for (const text of shown.texts) assert.ok(text.includes('［Open the prompt］（command:'), `the name is shown, as text: ${text}`);

    // the clicks: on every part of those messages, then on a control link that must run
    assert.ok((await clickMessages('Open the prompt')) >= 5);
    void vscode.window.showInformationMessage(`otrace test: [control link](command:${CONTROL})`);
    await until('the control notification', async () => ((await notificationsWith('control link')).links === 1 ? true : undefined));
    await clickMessages('control link');
    await until('the control link to run', () => (controlRuns > 0 ? true : undefined));
    assert.equal(hostileRuns, 0, 'a click on a file name ran the command it named');
  });

  it('a trace outside the workspace makes no neighbour openable: Go to Source Prompt asks first, and F12 offers nothing', async () => {
    const linked = path.join(dir, 'linked');
    fs.mkdirSync(path.join(linked, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(linked, 'secret.txt'), 'secret\n');
    fs.writeFileSync(path.join(linked, 'sub', 'deeper.txt'), 'deeper\n');
    const trace = path.join(linked, 'run.otrace.jsonl');
    fs.writeFileSync(
      trace,
      [
        { id: 'e1', t: 0, type: 'message', agent: 'a', content: 'one', source: { path: 'secret.txt' } },
        { id: 'e2', t: 1, type: 'message', agent: 'a', content: 'two', source: { path: 'sub/deeper.txt' } },
      ].map((e) => JSON.stringify(e)).join('\n') + '\n',
    );
    // as the link handler opens it: the trace and its graph
    await api.openUri(vscode.Uri.from({ scheme: vscode.env.uriScheme, authority: 'otrace.otrace', path: '/open', query: `path=${trace}` }));
    const editor = await until('the trace editor', () => vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === trace));
    await api.sessions.forDocument(editor.document);
    const asked: string[] = [];
    const before = api.setConfirmOpen(async (shown) => {
      asked.push(shown);
      return false;
    });
    try {
      for (const line of [0, 1]) {
        const defs = await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeDefinitionProvider', editor.document.uri, new vscode.Position(line, 5));
        assert.deepEqual(defs ?? [], [], 'F12 offers no neighbour of a trace outside the workspace');
        await vscode.commands.executeCommand('otrace.goToSourcePrompt', { trace: vscode.Uri.file(trace).toString(), index: line });
      }
      assert.deepEqual(asked, [path.join(linked, 'secret.txt'), path.join(linked, 'sub', 'deeper.txt')], 'asked for each, the path shown');
      const opened = vscode.workspace.textDocuments.map((d) => d.uri.fsPath);
      assert.ok(!opened.some((f) => f.endsWith('secret.txt') || f.endsWith('deeper.txt')), `opened without consent: ${opened.join(', ')}`);
    } finally {
      api.setConfirmOpen(before);
    }
  });

  it("Set the Run's Outcome names the file as text in the status bar", async () => {
    const trace = path.join(dir, `${NAME}.otrace.jsonl`);
    await vscode.commands.executeCommand('otrace.setOutcome', vscode.Uri.file(trace), 'failure');
    const item = await until('the status bar message', () =>
      evalInPage<{ text: string; icons: string[]; links: number } | undefined>(`() => {
        // (this file's message: another test's may still be shown)
        const item = [...document.querySelectorAll('.statusbar-item')].find((n) => n.textContent.includes('analysed as') && n.textContent.includes('Open the prompt'));
        return item ? { text: item.textContent, icons: [...item.querySelectorAll('.codicon')].map((i) => i.className), links: item.querySelectorAll('a[href^="command"]').length } : undefined;
      }`),
    );
    assert.ok(!item.icons.some((c) => /codicon-bug/.test(c)), `$(bug) became an icon: ${item.icons.join(' ')}`);
    assert.equal(item.links, 0);
  });
});
