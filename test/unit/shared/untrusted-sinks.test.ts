/**
 * Every VS Code surface in src/ that renders text (notifications, progress, Markdown, CodeLens
 * titles, status bar, quick picks, Problems, Outline, panel titles, decoration texts) takes text that the tags of
 * src/shared/untrusted-text.ts made for it, or a literal of ours. The TypeScript checker reads the
 * type of each argument: a plain `string` (a template with `${…}`, a name, a path) fails, so a file
 * name can never again reach a notification as Markdown (a trace named `[x](command:…)` ran a command).
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

type Brand = 'message' | 'markdown' | 'label' | 'plain' | 'symbol';

interface Sink {
  file: string;
  line: number;
  what: string;
  brand: Brand;
  ok: boolean;
  text: string;
}

const ROOT = path.join(__dirname, '..', '..', '..');

/** True when a value of `type` may be shown on a surface wanting `brand`: a literal, a number, or that brand. */
function typeIsSafe(checker: ts.TypeChecker, type: ts.Type, brand: Brand): boolean {
  if (type.isUnion()) return type.types.every((t) => typeIsSafe(checker, t, brand));
  const flags = type.getFlags();
  if (flags & (ts.TypeFlags.NumberLike | ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.BooleanLike | ts.TypeFlags.Void | ts.TypeFlags.Never)) return true;
  if (type.isStringLiteral()) return true;
  const mark = type.getProperty('__safeFor');
  if (mark) {
    const t = checker.getTypeOfSymbol(mark);
    return t.isStringLiteral() && (t.value === brand || (brand === 'plain' && t.value !== 'markdown'));
  }
  // objects that are not text (a MarkdownString, a Uri, an options bag) are checked where they are made
  return !(flags & (ts.TypeFlags.StringLike | ts.TypeFlags.Any | ts.TypeFlags.Unknown));
}

/**
 * True when the expression `node` is safe for `brand`: a literal of ours, a template or `+` whose
 * every interpolated part is safe (our literals, numbers, text of that brand), a conditional whose
 * branches are, or a value whose type is safe.
 */
function exprIsSafe(checker: ts.TypeChecker, node: ts.Expression, brand: Brand): boolean {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node)) return exprIsSafe(checker, node.expression, brand);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return true;
  if (ts.isTemplateExpression(node)) return node.templateSpans.every((span) => exprIsSafe(checker, span.expression, brand));
  if (ts.isConditionalExpression(node)) return exprIsSafe(checker, node.whenTrue, brand) && exprIsSafe(checker, node.whenFalse, brand);
  if (ts.isBinaryExpression(node) && (node.operatorToken.kind === ts.SyntaxKind.PlusToken || node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || node.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
    return exprIsSafe(checker, node.left, brand) && exprIsSafe(checker, node.right, brand);
  }
  return typeIsSafe(checker, checker.getTypeAtLocation(node), brand);
}

/** The declaration file of the symbol a call or property resolves to, to tell VS Code's API apart. */
function fromVscode(checker: ts.TypeChecker, node: ts.Node): boolean {
  const symbol = checker.getSymbolAtLocation(node);
  // (a property of a mapped type has no declaration and is no alias: asking its alias fails)
  const decl = symbol?.declarations?.[0] ?? (symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol).declarations?.[0] : undefined);
  return !!decl && /[\\/]@types[\\/]vscode[\\/]/.test(decl.getSourceFile().fileName);
}

/** Properties of an object type to check, by name: `{ title: 'message' }`. */
function checkProps(checker: ts.TypeChecker, type: ts.Type, props: Record<string, Brand>, at: ts.Node, what: string, found: Sink[]): void {
  if (ts.isObjectLiteralExpression(at)) {
    // an object written here: judge what each property is given, not the property's declared type
    for (const p of at.properties) {
      const name = p.name && ts.isIdentifier(p.name) ? p.name.text : undefined;
      const brand = name !== undefined ? props[name] : undefined;
      if (!brand) continue;
      if (ts.isPropertyAssignment(p)) found.push(sink(p, `${what}.${name}`, brand, exprIsSafe(checker, p.initializer, brand)));
      else if (ts.isShorthandPropertyAssignment(p)) {
        const value = checker.getShorthandAssignmentValueSymbol(p);
        found.push(sink(p, `${what}.${name}`, brand, !!value && typeIsSafe(checker, checker.getTypeOfSymbolAtLocation(value, p), brand)));
      }
    }
    return;
  }
  const element = checker.getIndexTypeOfType(type, ts.IndexKind.Number) ?? type;
  for (const t of element.isUnion() ? element.types : [element]) {
    for (const [name, brand] of Object.entries(props)) {
      const p = t.getProperty(name);
      if (p) found.push(sink(at, `${what}.${name}`, brand, typeIsSafe(checker, checker.getTypeOfSymbolAtLocation(p, at), brand)));
    }
  }
}

function sink(node: ts.Node, what: string, brand: Brand, ok: boolean): Sink {
  const sf = node.getSourceFile();
  return { file: path.relative(ROOT, sf.fileName), line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, what, brand, ok, text: node.getText().slice(0, 120) };
}

/** Finds the text sinks of VS Code's API in the program's files under `dir` and judges each. */
export function findSinks(program: ts.Program, dir: string): Sink[] {
  const checker = program.getTypeChecker();
  const found: Sink[] = [];
  const arg = (node: ts.Expression, what: string, brand: Brand) => found.push(sink(node, what, brand, exprIsSafe(checker, node, brand)));
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && fromVscode(checker, node.expression.name)) {
      const name = node.expression.name.text;
      const args = node.arguments;
      if (/^show(Information|Warning|Error)Message$/.test(name)) {
        args.forEach((a) => {
          if (ts.isObjectLiteralExpression(a)) checkProps(checker, checker.getTypeAtLocation(a), { detail: 'message' }, a, name, found);
          else arg(a, name, 'message');
        });
      } else if (name === 'withProgress' && args[0]) checkProps(checker, checker.getTypeAtLocation(args[0]), { title: 'message' }, args[0], name, found);
      else if (name === 'report' && args[0]) checkProps(checker, checker.getTypeAtLocation(args[0]), { message: 'message' }, args[0], 'progress.report', found);
      else if (name === 'setStatusBarMessage' && args[0]) arg(args[0], name, 'label');
      else if (name === 'appendMarkdown' && args[0]) arg(args[0], name, 'markdown');
      else if (name === 'createWebviewPanel' && args[1]) arg(args[1], name, 'plain');
      else if (name === 'showQuickPick') {
        if (args[0]) {
          const t = checker.getTypeAtLocation(args[0]);
          const items = checker.getAwaitedType(t) ?? t;
          checkProps(checker, items, { label: 'label', description: 'label', detail: 'label' }, args[0], name, found);
        }
        if (args[1]) checkProps(checker, checker.getTypeAtLocation(args[1]), { placeHolder: 'label', title: 'label' }, args[1], name, found);
      }
    } else if (ts.isNewExpression(node) && fromVscode(checker, ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression)) {
      const name = node.expression.getText().replace(/^vscode\./, '');
      const args = node.arguments ?? [];
      if (name === 'MarkdownString' && args[0]) arg(args[0], name, 'markdown');
      else if (name === 'Diagnostic' && args[1]) arg(args[1], name, 'plain');
      else if (name === 'DiagnosticRelatedInformation' && args[1]) arg(args[1], name, 'plain');
      else if (name === 'DocumentSymbol') args.slice(0, 2).forEach((a) => arg(a, name, 'symbol'));
      else if (name === 'TreeItem' && args[0]) arg(args[0], name, 'label');
      else if (name === 'Hover' && args[0] && checker.getTypeAtLocation(args[0]).getFlags() & ts.TypeFlags.StringLike) arg(args[0], name, 'markdown');
      else if (name === 'CodeLens' && args[1]) checkProps(checker, checker.getTypeAtLocation(args[1]), { title: 'label', tooltip: 'plain' }, args[1], name, found);
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'contentText' && ts.isObjectLiteralExpression(node.parent)) {
      // a decoration's text (before/after attachments): shown as is, beside the trace's own text
      const owner = checker.getContextualType(node.parent);
      const prop = owner?.getProperty('contentText');
      const decl = prop?.declarations?.[0];
      if (decl && /[\\/]@types[\\/]vscode[\\/]/.test(decl.getSourceFile().fileName)) arg(node.initializer, 'DecorationOptions.contentText', 'plain');
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && fromVscode(checker, node.left.name)) {
      const owner = checker.typeToString(checker.getTypeAtLocation(node.left.expression));
      const prop = node.left.name.text;
      const brand: Brand | undefined = /StatusBarItem/.test(owner) ? ({ text: 'label', tooltip: 'plain', name: 'plain' } as Record<string, Brand>)[prop]
        : /WebviewPanel|WebviewView/.test(owner) ? ({ title: 'plain', description: 'plain' } as Record<string, Brand>)[prop]
        : /QuickPick|InputBox/.test(owner) ? ({ title: 'label', placeholder: 'label', prompt: 'label' } as Record<string, Brand>)[prop]
        : /TreeItem|DocumentSymbol/.test(owner) ? ({ label: 'label', description: 'label', tooltip: 'plain', name: /DocumentSymbol/.test(owner) ? 'symbol' : 'plain', detail: /DocumentSymbol/.test(owner) ? 'symbol' : 'plain' } as Record<string, Brand>)[prop]
        : undefined;
      if (brand) arg(node.right, `${owner}.${prop}`, brand);
    }
    ts.forEachChild(node, visit);
  };
  for (const sf of program.getSourceFiles()) {
    if (sf.fileName.startsWith(dir) && !sf.isDeclarationFile) visit(sf);
  }
  return found;
}

function programOf(files: string[]): ts.Program {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return ts.createProgram(files, { ...options, noEmit: true });
}

test('every notification, Markdown, CodeLens, status bar, quick pick, Problems, Outline and decoration text in src/ takes escaped or literal text', () => {
  const src = path.join(ROOT, 'src');
  const files = ts.sys.readDirectory(src, ['.ts']);
  const sinks = findSinks(programOf(files), src);
  // the scan sees the surfaces (a scan that finds nothing would pass forever)
  const kinds = new Set(sinks.map((s) => s.what.replace(/\..*/, '')));
  for (const k of ['showInformationMessage', 'showWarningMessage', 'showErrorMessage', 'withProgress', 'appendMarkdown', 'CodeLens', 'Diagnostic', 'DocumentSymbol', 'showQuickPick', 'setStatusBarMessage', 'DecorationOptions']) {
    assert.ok(kinds.has(k), `the scan found no ${k} in src/: ${[...kinds].join(', ')}`);
  }
  assert.ok(sinks.length >= 30, `only ${sinks.length} sinks found`);
  const bad = sinks.filter((s) => !s.ok);
  assert.deepEqual(bad.map((s) => `${s.file}:${s.line} ${s.what} wants ${s.brand} text: ${s.text}`), []);
});

test('the scan fails a file name in a notification, a plain string in Markdown, an unescaped CodeLens title and decoration text, a symbol of plain text', () => {
  const dir = path.join(ROOT, 'test', 'unit', 'shared', 'planted');
  const program = programOf([path.join(dir, 'unsafe-surfaces.ts')]);
  const sinks = findSinks(program, dir);
  const byLine = (ok: boolean) => sinks.filter((s) => s.ok === ok).map((s) => s.what).sort();
  // (a symbol's name and its detail)
  const all = ['CodeLens.title', 'Diagnostic', 'DocumentSymbol', 'DocumentSymbol', 'MarkdownString', 'StatusBarItem.text', 'showInformationMessage', 'showQuickPick.label', 'DecorationOptions.contentText'].sort();
  assert.deepEqual(byLine(false), all);
  assert.deepEqual(byLine(true), all);
});
