/**
 * The graph panel's editor group locks itself (package.json: `workbench.editor.autoLockGroups`
 * for `mainThreadWebview-otrace.traceGraphSide`, VS Code's mechanism for Markdown's preview and
 * terminal editors): files opened after a click in the graph (File > Open, Quick Open, a link) open
 * in another group, never over the graph. VS Code keeps a group's lock when the group outlives its
 * graph as the window's only group (Close All Editors), and then opens every file in a new split
 * beside that empty group; this module unlocks such a group.
 */
import * as vscode from 'vscode';
import { SIDE_PANEL_TYPE } from './graph-panels';

/** True for the tab of a graph side panel (its webview view type carries the panel's type). */
export function isGraphTab(tab: vscode.Tab): boolean {
  return tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith(SIDE_PANEL_TYPE);
}

/** How many groups {@link unlockGroupLeftByGraph} has unlocked (the integration tests wait for it). */
let unlocked = 0;

/** How many groups left by a graph have been unlocked so far. */
export function groupsUnlocked(): number {
  return unlocked;
}

/**
 * After a graph side panel closed, once the window is down to one editor group holding no graph,
 * unlocks that group (`workbench.action.unlockEditorGroup`, which acts on the active group: the
 * only one). A group the user locked beside an open graph, or with no graph closed since, is left
 * as it is. Returns the listeners' disposable.
 */
export function unlockGroupLeftByGraph(): vscode.Disposable {
  const groups = vscode.window.tabGroups;
  let graphClosed = false;
  const check = () => {
    if (!graphClosed || groups.all.length !== 1 || groups.all[0].tabs.some(isGraphTab)) return;
    graphClosed = false;
    void vscode.commands.executeCommand('workbench.action.unlockEditorGroup').then(() => unlocked++);
  };
  return vscode.Disposable.from(
    groups.onDidChangeTabs((e) => {
      if (e.opened.some(isGraphTab)) graphClosed = false;
      if (e.closed.some(isGraphTab)) graphClosed = true;
      check();
    }),
    groups.onDidChangeTabGroups(check),
  );
}
