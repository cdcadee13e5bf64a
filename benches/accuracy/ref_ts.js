#!/usr/bin/env node
// Reference call graph of a TypeScript tree, by the TypeScript compiler's checker: each call
// and `new` expression's resolved signature -> its declaration.
//
//   NODE_PATH=<node_modules holding typescript> node ref_ts.js ROOT > ref.json
//
// Output: the same JSON as ref_python.py. Defs are the named functions: function
// declarations, methods, constructors, accessors, classes, and arrow functions or function
// expressions bound to a variable or a property (`const f = () => …`, `{ f: () => … }`,
// `obj.f = () => …`); a call inside an anonymous function belongs to
// the innermost named def around it. A def's key is "path:line" with the line of its name.
const ts = require("typescript");
const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(process.argv[2]);
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.(ts|tsx|mts|cts)$/.test(e.name) && !e.name.endsWith(".d.ts")) files.push(p);
  }
})(ROOT);
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, strict: true, noEmit: true,
  skipLibCheck: true, allowImportingTsExtensions: true, jsx: ts.JsxEmit.Preserve,
  lib: ["lib.esnext.d.ts", "lib.dom.d.ts"],
});
const checker = program.getTypeChecker();
const rel = (f) => path.relative(ROOT, f);
const inRoot = (f) => f.startsWith(ROOT + path.sep) && !f.includes(`${path.sep}node_modules${path.sep}`);

const defs = {}, edges = [], unresolved = [], skipped = {};
let external = 0;
const bump = (k) => { skipped[k] = (skipped[k] || 0) + 1; };

// The name node of a named def, or undefined.
function defName(n) {
  if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isClassDeclaration(n) ||
      ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n) || ts.isClassExpression(n)) {
    if (n.name) return n.name;
    if (ts.isClassExpression(n) && ts.isVariableDeclaration(n.parent)) return n.parent.name;
    return undefined;
  }
  if (ts.isConstructorDeclaration(n)) return n.getChildren().find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
  if (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) {
    const p = n.parent;
    if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.initializer === n && !ts.isBindingPattern(p.name))
      return p.name;
    // `inst._zod.check = (payload) => {…}`, `obj.run = function () {…}`: named by the property
    if (ts.isBinaryExpression(p) && p.right === n && p.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(p.left))
      return p.left.name;
    if (ts.isFunctionExpression(n) && n.name) return n.name;
  }
  return undefined;
}
const isClass = (n) => ts.isClassDeclaration(n) || ts.isClassExpression(n);
function keyOfName(name) {
  const sf = name.getSourceFile();
  return `${rel(sf.fileName)}:${sf.getLineAndCharacterOfPosition(name.getStart(sf)).line + 1}`;
}
function enclosingDef(n) {
  for (let p = n.parent; p; p = p.parent) {
    const nm = defName(p);
    if (nm) return p;
  }
  return undefined;
}
// The def a declaration stands for: itself when named, the variable it initialises, ...
function defOfDecl(d) {
  if (!d) return undefined;
  if (ts.isVariableDeclaration(d) || ts.isPropertyAssignment(d) || ts.isPropertyDeclaration(d)) {
    const i = d.initializer;
    if (i && (ts.isArrowFunction(i) || ts.isFunctionExpression(i) || ts.isClassExpression(i))) return i;
    return undefined;
  }
  if (defName(d)) return d;
  return undefined;
}

function addDef(n, sf) {
  const nm = defName(n);
  const key = keyOfName(nm);
  let cls = null;
  if (!isClass(n) && n.parent && isClass(n.parent) && defName(n.parent)) cls = keyOfName(defName(n.parent));
  if ((ts.isPropertyDeclaration(n.parent)) && isClass(n.parent.parent) && defName(n.parent.parent)) cls = keyOfName(defName(n.parent.parent));
  const d = {
    path: rel(sf.fileName), name: ts.isConstructorDeclaration(n) ? "constructor" : nm.getText(sf),
    line: sf.getLineAndCharacterOfPosition(nm.getStart(sf)).line + 1,
    end: sf.getLineAndCharacterOfPosition(n.getEnd()).line + 1,
    kind: isClass(n) ? "class" : "function", class: cls, ctor: ts.isConstructorDeclaration(n), in_lambda: false,
  };
  if (isClass(n)) {
    d.bases = [];
    for (const h of n.heritageClauses || []) {
      if (h.token !== ts.SyntaxKind.ExtendsKeyword) continue;
      for (const t of h.types) {
        let s = checker.getSymbolAtLocation(t.expression);
        if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
        for (const b of (s && s.declarations) || []) {
          const bd = defOfDecl(b);
          if (bd && isClass(bd) && inRoot(b.getSourceFile().fileName)) d.bases.push(keyOfName(defName(bd)));
        }
      }
    }
  }
  defs[key] = d;
}

function calleeName(e) {
  if (ts.isPropertyAccessExpression(e)) return e.name;
  if (ts.isIdentifier(e) || e.kind === ts.SyntaxKind.SuperKeyword) return e;
  if (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e)) return calleeName(e.expression);
  return undefined;
}

function visitCall(n, sf) {
  const encl = enclosingDef(n);
  const caller = encl ? keyOfName(defName(encl)) : `<${rel(sf.fileName)}>`;
  const nameNode = calleeName(n.expression);
  const at = nameNode || n;
  const lc = sf.getLineAndCharacterOfPosition(at.getStart(sf));
  const site = `${rel(sf.fileName)}:${lc.line + 1}:${lc.character + 1}`;
  if (!nameNode) { unresolved.push({ caller, site, why: "callee is not a name" }); return; }
  let decls = [];
  const sig = checker.getResolvedSignature(n);
  if (sig && sig.declaration && !ts.isJSDocSignature(sig.declaration)) decls = [sig.declaration];
  if (!decls.length || ts.isNewExpression(n)) {
    let s = checker.getSymbolAtLocation(nameNode);
    if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
    if (s && s.declarations && (!decls.length || (ts.isNewExpression(n) && !decls.length))) decls = s.declarations.slice(0, 1);
  }
  if (!decls.length) { unresolved.push({ caller, site, why: "not resolved" }); return; }
  let d = decls[0];
  if ((ts.isMethodDeclaration(d) || ts.isFunctionDeclaration(d)) && !d.body) {
    // an overload signature: the implementation is the declaration with a body
    let s = d.name && checker.getSymbolAtLocation(d.name);
    const impl = s && (s.declarations || []).find((x) => x.kind === d.kind && x.body);
    if (impl) d = impl;
  }
  const file = d.getSourceFile().fileName;
  if (!inRoot(file)) { external++; return; }
  let def = defOfDecl(d);
  if (!def && ts.isNewExpression(n) && isClass(d)) def = d;
  if (!def) {
    // an interface or abstract method, a parameter or property of a function type, an overload
    // signature: the reference does not know which implementation runs
    if (ts.isMethodSignature(d) || ts.isCallSignatureDeclaration(d) || ts.isConstructSignatureDeclaration(d) ||
        ((ts.isMethodDeclaration(d) || ts.isFunctionDeclaration(d)) && !d.body))
      unresolved.push({ caller, site, why: "interface, abstract or overload signature" });
    else unresolved.push({ caller, site, why: "callee is a value of unknown origin" });
    return;
  }
  if ((ts.isMethodDeclaration(def) || ts.isFunctionDeclaration(def)) && !def.body) {
    unresolved.push({ caller, site, why: "interface, abstract or overload signature" });
    return;
  }
  edges.push({ caller, callee: keyOfName(defName(def)), site, how: ts.isNewExpression(n) || nameNode.kind === ts.SyntaxKind.SuperKeyword ? "construct" : "call" });
}

for (const sf of program.getSourceFiles()) {
  if (!inRoot(sf.fileName) || sf.isDeclarationFile) continue;
  (function visit(n) {
    if (defName(n)) addDef(n, sf);
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) visitCall(n, sf);
    else if (ts.isTaggedTemplateExpression(n) || ts.isDecorator(n)) bump(ts.isDecorator(n) ? "decorator" : "tagged template");
    ts.forEachChild(n, visit);
  })(sf);
}
process.stdout.write(JSON.stringify({ tool: `typescript ${ts.version}`, defs, edges, unresolved, skipped, external_sites: external }));
