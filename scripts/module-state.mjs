// Finds the module-level state of a browser bundle: every binding of a scope that runs once, at
// load (the script itself, an IIFE, a UMD factory, a bundler's module functions), that code
// running later (inside any other function) writes: assigns, updates, writes a property of, or
// changes through a mutating method (Map/Set/Array). Such a binding outlives every chart and is
// shared by every render of the page (docs/decisions/0034-page-state-by-construction.md).
// Used by scripts/vendor.mjs (the build refuses a bundle whose state is not all accounted for)
// and by test/unit/module-state.test.ts.
import { parse } from 'acorn';

const MUTATORS = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin']);
/** Initialisers that make a binding hold an object that code run later could write if it got it. */
const HOLDS_OBJECT = /^(ObjectExpression|ArrayExpression|NewExpression)/;
const STATEMENT = /^(Variable|Function|Class)Declaration$|Statement$/;
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

class Scope {
  constructor(kind, node, parent, loadOnce) {
    this.kind = kind;
    this.node = node;
    this.parent = parent;
    this.loadOnce = loadOnce;
    /** @type {Map<string, any>} */
    this.vars = new Map();
  }
  fn() {
    let s = this;
    while (s.kind === 'block') s = s.parent;
    return s;
  }
  lookup(name) {
    for (let s = this; s; s = s.parent) if (s.vars.has(name)) return s.vars.get(name);
    return null;
  }
}

/** The keys of a node type that hold child nodes, learnt from the first node of that type. */
const CHILD_KEYS = new Map();
const SKIP = new Set(['type', 'start', 'end', 'loc', 'range', 'name', 'raw', 'regex', 'bigint', 'operator', 'prefix', 'computed', 'static', 'async', 'generator', 'method', 'shorthand', 'optional', 'sourceType', 'delegate', 'tail', 'cooked']);

/** The child nodes of an ESTree node. */
function children(node) {
  let keys = CHILD_KEYS.get(node.type);
  if (!keys) {
    keys = Object.keys(node).filter((k) => !SKIP.has(k));
    CHILD_KEYS.set(node.type, keys);
  }
  const out = [];
  for (const key of keys) {
    const v = node[key];
    if (Array.isArray(v)) {
      for (const c of v) if (c && typeof c.type === 'string') out.push(c);
    } else if (v && typeof v.type === 'string') out.push(v);
  }
  return out;
}

/** Identifiers a pattern binds. */
function patternNames(p, out = []) {
  if (!p) return out;
  if (p.type === 'Identifier') out.push(p);
  else if (p.type === 'ObjectPattern') for (const q of p.properties) patternNames(q.type === 'RestElement' ? q.argument : q.value, out);
  else if (p.type === 'ArrayPattern') for (const q of p.elements) patternNames(q, out);
  else if (p.type === 'RestElement') patternNames(p.argument, out);
  else if (p.type === 'AssignmentPattern') patternNames(p.left, out);
  return out;
}

/** Whether a function node runs once when its enclosing load-once scope runs: called where it
 *  is written ((function(){})(), !function(){}(), f.call(this)), handed to such a call (a UMD
 *  factory), or a module of a bundler's table handed to one (browserify: {1: [function ...]}). */
function runsAtLoad(node, parents, wrappers) {
  let i = parents.length - 1;
  let child = node;
  let p = parents[i];
  // (function(){}).call(this) / .apply
  if (p.type === 'MemberExpression' && p.object === child && !p.computed && (p.property.name === 'call' || p.property.name === 'apply')) {
    child = p;
    p = parents[--i];
  }
  if (p.type === 'CallExpression' && p.callee === child) return true;
  if (p.type === 'CallExpression' && p.arguments.includes(child)) {
    if (isOnceCall(p)) return true;
    // a CommonJS module handed to its bundler's wrapper: function e(t, e) { return t(e = {exports: {}}, e.exports), e.exports }
    if (p.arguments[0] === child && p.callee.type === 'Identifier' && wrappers.has(p.callee.name)) return true;
  }
  // browserify: a module function as the first item of an array in an object handed to a call
  if (p.type === 'ArrayExpression' && p.elements[0] === child) {
    const prop = parents[i - 1];
    const obj = parents[i - 2];
    const call = parents[i - 3];
    if (prop && prop.type === 'Property' && obj && obj.type === 'ObjectExpression' && call && call.type === 'CallExpression' && call.arguments.includes(obj)) return true;
  }
  return false;
}

/** Names of functions that call their first parameter at once and return (a bundler's CommonJS
 *  wrapper: rollup's `function e(t, e) { return t(e = {exports: {}}, e.exports), e.exports }`). */
function commonJsWrappers(ast) {
  const out = new Set();
  (function visit(node) {
    if (node.type === 'FunctionDeclaration' && node.params[0] && node.params[0].type === 'Identifier' && node.body.body.length === 1) {
      const first = node.params[0].name;
      const stmt = node.body.body[0];
      let e = stmt.type === 'ReturnStatement' ? stmt.argument : stmt.type === 'ExpressionStatement' ? stmt.expression : null;
      if (e && e.type === 'SequenceExpression') e = e.expressions[0];
      if (e && e.type === 'CallExpression' && e.callee.type === 'Identifier' && e.callee.name === first) out.add(node.id.name);
    }
    for (const c of children(node)) visit(c);
  })(ast);
  return out;
}

/** A call whose callee is a function written there, or the result of such a call (UMD, bundlers). */
function isOnceCall(call) {
  let c = call.callee;
  while (c.type === 'CallExpression') c = c.callee;
  return FUNCTIONS.has(c.type);
}

/**
 * Scans one script. Returns its module-level bindings that code run after load writes (written:
 * true), and those holding an object (an object or array literal, a `new` instance) that such
 * code reads but never writes (written: false: a table a function may hand out):
 * [{ name, kind, init, written, writes, statementStart, statementEnd, injectable, at }].
 */
export function scanModuleState(source) {
  const ast = parse(source, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true, allowReturnOutsideFunction: true });
  const program = new Scope('function', ast, null, true);
  const wrappers = commonJsWrappers(ast);
  /** @type {Map<any, Scope>} */
  const scopeOf = new Map();
  const all = [];

  function declare(scope, id, kind, decl, statement, statementParent) {
    if (!id || id.type !== 'Identifier') return;
    if (scope.vars.has(id.name) && kind === 'var') return;
    const b = { name: id.name, kind, scope, decl, statement, init: decl && decl.init ? decl.init.type + (decl.init.type === 'NewExpression' && decl.init.callee.type === 'Identifier' ? ':' + decl.init.callee.name : '') : kind, writes: new Set(), at: [], statementParent };
    scope.vars.set(id.name, b);
    all.push(b);
  }

  // pass 1: scopes and declarations (var and functions hoisted to their function's scope)
  function declarePass(node, scope, parents, statement) {
    let inner = scope;
    if (FUNCTIONS.has(node.type)) {
      const loadOnce = scope.fn().loadOnce && node.type !== 'FunctionDeclaration' && runsAtLoad(node, parents, wrappers);
      if (node.type === 'FunctionDeclaration') declare(scope, node.id, 'function', null, node, parents[parents.length - 1]);
      inner = new Scope('function', node, scope, loadOnce);
      scopeOf.set(node, inner);
      if (node.type === 'FunctionExpression' && node.id) declare(inner, node.id, 'fname', null, node);
      for (const p of node.params) for (const id of patternNames(p)) declare(inner, id, 'param', null, node);
    } else if (node.type === 'BlockStatement' || node.type === 'ForStatement' || node.type === 'ForInStatement' || node.type === 'ForOfStatement' || node.type === 'SwitchStatement' || node.type === 'StaticBlock') {
      const parent = parents[parents.length - 1];
      if (!(node.type === 'BlockStatement' && parent && FUNCTIONS.has(parent.type))) {
        inner = new Scope('block', node, scope, false);
        scopeOf.set(node, inner);
      }
    } else if (node.type === 'CatchClause') {
      inner = new Scope('block', node, scope, false);
      scopeOf.set(node, inner);
      for (const id of patternNames(node.param)) declare(inner, id, 'catch', null, node);
    } else if (node.type === 'ClassDeclaration') {
      declare(scope, node.id, 'class', null, node, parents[parents.length - 1]);
    } else if (node.type === 'VariableDeclaration') {
      const target = node.kind === 'var' ? scope.fn() : scope;
      for (const d of node.declarations) for (const id of patternNames(d.id)) declare(target, id, node.kind, d.id.type === 'Identifier' ? d : null, node, parents[parents.length - 1]);
    }
    if (node.type === 'ClassExpression' || node.type === 'ClassDeclaration') {
      // class bodies: methods are functions (never load-once)
    }
    const next = statement;
    parents.push(node);
    const stmt = STATEMENT.test(node.type) ? node : next;
    for (const c of children(node)) declarePass(c, inner, parents, stmt);
    parents.pop();
  }
  declarePass(ast, program, [], ast);
  scopeOf.set(ast, program);

  // pass 2: references, and which of them write
  function record(id, scope, kind) {
    const b = scope.lookup(id.name);
    if (!b) return;
    const fn = scope.fn();
    // a write made while the scope that declares the binding runs (at load), or from a load-once
    // function, happens once, at load
    if (fn.loadOnce) return;
    b.writes.add(kind);
    if (b.at.length < 3) b.at.push(id.start);
  }

  /** The identifier at the root of a member chain (a.b[c].d -> a). */
  function rootOf(m) {
    while (m.type === 'MemberExpression') m = m.object;
    return m.type === 'Identifier' ? m : null;
  }

  /** Whether an Identifier node, under its parent, reads a binding (not a name of something else). */
  function isReference(node, parent) {
    if (!parent) return true;
    switch (parent.type) {
      case 'MemberExpression':
        return parent.object === node || parent.computed;
      case 'Property':
        return parent.value === node || parent.computed || parent.shorthand;
      case 'MethodDefinition':
      case 'PropertyDefinition':
        return parent.key !== node || parent.computed;
      case 'LabeledStatement':
      case 'BreakStatement':
      case 'ContinueStatement':
        return false;
      case 'VariableDeclarator':
        return parent.init === node;
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
      case 'ClassDeclaration':
      case 'ClassExpression':
      case 'CatchClause':
        return false;
      default:
        return true;
    }
  }

  function refPass(node, scope, parents) {
    const inner = scopeOf.get(node) || scope;
    const parent = parents[parents.length - 1];
    if (node.type === 'Identifier' && isReference(node, parent) && !scope.fn().loadOnce) {
      const b = scope.lookup(node.name);
      if (b) b.runtimeRead = true;
    }
    switch (node.type) {
      case 'AssignmentExpression': {
        if (node.left.type === 'Identifier') record(node.left, scope, 'assign');
        else if (node.left.type === 'MemberExpression') {
          const r = rootOf(node.left);
          if (r) record(r, scope, 'member');
        } else for (const id of patternNames(node.left)) record(id, scope, 'assign');
        break;
      }
      case 'UpdateExpression': {
        if (node.argument.type === 'Identifier') record(node.argument, scope, 'assign');
        else {
          const r = rootOf(node.argument);
          if (r) record(r, scope, 'member');
        }
        break;
      }
      case 'UnaryExpression': {
        if (node.operator === 'delete' && node.argument.type === 'MemberExpression') {
          const r = rootOf(node.argument);
          if (r) record(r, scope, 'member');
        }
        break;
      }
      case 'CallExpression': {
        const c = node.callee;
        if (c.type === 'MemberExpression' && !c.computed && c.property.type === 'Identifier' && MUTATORS.has(c.property.name)) {
          const r = rootOf(c.object);
          if (r) record(r, scope, 'mutate');
        }
        break;
      }
      case 'ForInStatement':
      case 'ForOfStatement': {
        if (node.left.type !== 'VariableDeclaration') for (const id of patternNames(node.left)) record(id, inner, 'assign');
        break;
      }
      default:
    }
    void parent;
    parents.push(node);
    for (const c of children(node)) refPass(c, inner, parents);
    parents.pop();
  }
  refPass(ast, program, []);

  return all
    .filter((b) => b.scope.fn().loadOnce && b.scope.kind === 'function' && b.kind !== 'param' && b.kind !== 'fname' && (b.writes.size > 0 || (b.runtimeRead && HOLDS_OBJECT.test(b.init))))
    .map((b) => {
      const body = b.scope.node.type === 'Program' ? b.scope.node : b.scope.node.body;
      // the statement hangs from the body of the scope that runs once: a call can follow it there
      const injectable = b.statementParent === body && (b.statement.type === 'VariableDeclaration' || b.statement.type === 'FunctionDeclaration' || b.statement.type === 'ClassDeclaration');
      return { name: b.name, kind: b.kind, init: b.init, written: b.writes.size > 0, writes: [...b.writes].sort(), statementStart: b.statement.start, statementEnd: b.statement.end, injectable, at: b.at };
    });
}
