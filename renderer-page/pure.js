// Which function strings provably change nothing outside their own call, so that a render whose
// callbacks are all of that kind needs no page reset (docs/decisions/0002-function-string-sandbox.md).
(function (root) {
  'use strict';

  var TOKEN = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_$][\w$]*)|('(?:[^'\\\n\r]|\\[^\n\r])*'|"(?:[^"\\\n\r]|\\[^\n\r])*")|(===|!==|==|!=|<=|>=|&&|\|\||\?\?|\+\+|--|[-+*/%<>!?:.,()\[\]=;{}]))/y;
  var TRAILING = /\s*$/y;
  var IDENT = /^[A-Za-z_$][\w$]*$/;

  function set(list) {
    var s = Object.create(null);
    for (var i = 0; i < list.length; i++) s[list[i]] = true;
    return s;
  }
  // Callable on any receiver: no object in the page has a method of one of these names that
  // changes state (String, Number, Array, Math, Date, Blob... all only read and compute).
  var SAFE_METHODS = set(['toFixed', 'toPrecision', 'toLocaleString', 'toString', 'toUpperCase', 'toLowerCase', 'trim',
    'padStart', 'padEnd', 'slice', 'substring', 'substr', 'charAt', 'indexOf', 'lastIndexOf', 'includes', 'startsWith',
    'endsWith', 'join', 'split', 'concat', 'round', 'floor', 'ceil', 'abs', 'min', 'max', 'pow', 'sqrt', 'trunc', 'sign',
    'log10', 'exp', 'isInteger', 'isFinite', 'isNaN']);
  var SAFE_FUNCTIONS = set(['isNaN', 'isFinite', 'parseInt', 'parseFloat', 'Number', 'String']);
  var SAFE_GLOBALS = set(['Math', 'Number', 'String', 'isNaN', 'isFinite', 'parseInt', 'parseFloat', 'undefined', 'NaN', 'Infinity']);
  var LITERALS = set(['true', 'false', 'null']);
  var KEYWORDS = set(['return', 'var', 'let', 'const', 'if', 'typeof', 'this', 'new', 'function', 'delete', 'void', 'in',
    'instanceof', 'await', 'yield', 'class', 'super', 'import', 'with', 'for', 'while', 'do', 'else', 'try', 'catch',
    'throw', 'switch', 'case', 'default', 'break', 'continue', 'debugger', 'arguments', 'eval']);
  var FORBIDDEN_PROPS = set(['constructor', '__proto__', 'prototype']);

  // `++` and `--` are tokens of their own (and refused): read as two signs, `o.x--` would look
  // like a subtraction while JavaScript decrements o.x; the HTML-like comment openers of
  // classic scripts (less-than, bang, two dashes; two dashes, greater-than) contain them too.
  function tokenize(src) {
    var out = [];
    TOKEN.lastIndex = 0;
    while (TOKEN.lastIndex < src.length) {
      var at = TOKEN.lastIndex;
      var m = TOKEN.exec(src);
      if (!m) {
        TRAILING.lastIndex = at;
        if (TRAILING.exec(src)) break;
        return null;
      }
      if (m[1] !== undefined) out.push({ t: 'num' });
      else if (m[2] !== undefined) out.push({ t: 'id', v: m[2] });
      else if (m[3] !== undefined) out.push({ t: 'str' });
      else out.push({ t: 'op', v: m[4] });
    }
    return out;
  }

  function Parser(tokens, scope) {
    this.k = tokens;
    this.i = 0;
    this.scope = scope;
  }
  Parser.prototype.peek = function (v) {
    var t = this.k[this.i];
    return !!t && (t.t === 'op' || t.t === 'id') && t.v === v;
  };
  Parser.prototype.eat = function (v) {
    if (!this.peek(v)) throw 0;
    this.i++;
  };
  Parser.prototype.name = function () {
    var t = this.k[this.i++];
    if (!t || t.t !== 'id' || KEYWORDS[t.v] || LITERALS[t.v]) throw 0;
    return t.v;
  };
  Parser.prototype.end = function () {
    if (this.i !== this.k.length) throw 0;
  };
  // body := decl* ('if' '(' e ')' 'return' e ';'?)* 'return' e ';'?
  Parser.prototype.body = function () {
    while (this.peek('var') || this.peek('let') || this.peek('const')) {
      this.i++;
      var n = this.name();
      this.eat('=');
      this.expr();
      this.scope[n] = true;
      this.eat(';');
    }
    while (this.peek('if')) {
      this.i++;
      this.eat('(');
      this.expr();
      this.eat(')');
      this.eat('return');
      this.expr();
      if (this.peek(';')) this.i++;
    }
    this.eat('return');
    this.expr();
    if (this.peek(';')) this.i++;
    this.end();
  };
  Parser.prototype.expr = function () {
    this.binary(0);
    if (this.peek('?')) {
      this.i++;
      this.expr();
      this.eat(':');
      this.expr();
    }
  };
  var LEVELS = [['||', '??'], ['&&'], ['===', '!==', '==', '!='], ['<', '>', '<=', '>='], ['+', '-'], ['*', '/', '%']];
  Parser.prototype.binary = function (level) {
    if (level === LEVELS.length) return this.unary();
    this.binary(level + 1);
    for (;;) {
      var t = this.k[this.i];
      if (!t || t.t !== 'op' || LEVELS[level].indexOf(t.v) === -1) return;
      this.i++;
      this.binary(level + 1);
    }
  };
  Parser.prototype.unary = function () {
    if (this.peek('!') || this.peek('-') || this.peek('+') || this.peek('typeof')) {
      this.i++;
      return this.unary();
    }
    this.postfix();
  };
  Parser.prototype.postfix = function () {
    var t = this.k[this.i++];
    if (!t) throw 0;
    var callable = false;
    if (t.t === 'num' || t.t === 'str') {
      /* literal */
    } else if (t.t === 'id') {
      if (LITERALS[t.v]) {
        /* literal */
      } else if (KEYWORDS[t.v] || !(this.scope[t.v] || SAFE_GLOBALS[t.v])) throw 0;
      // a parameter named like a global function is the parameter, not the function
      callable = !this.scope[t.v] && SAFE_FUNCTIONS[t.v] === true;
    } else if (t.v === '(') {
      this.expr();
      this.eat(')');
    } else throw 0;
    for (;;) {
      if (this.peek('.')) {
        this.i++;
        var p = this.k[this.i++];
        if (!p || p.t !== 'id' || FORBIDDEN_PROPS[p.v]) throw 0;
        callable = SAFE_METHODS[p.v] === true;
      } else if (this.peek('[')) {
        // a computed read (items[0], data[item.index]); whatever it reads cannot be called
        this.i++;
        this.expr();
        this.eat(']');
        callable = false;
      } else if (this.peek('(')) {
        if (!callable) throw 0;
        this.i++;
        if (!this.peek(')')) {
          this.expr();
          while (this.peek(',')) {
            this.i++;
            this.expr();
          }
        }
        this.eat(')');
        callable = false;
      } else return;
    }
  };

  function scopeOf(params) {
    var scope = Object.create(null);
    var list = params.trim() === '' ? [] : params.split(',');
    for (var i = 0; i < list.length; i++) {
      var p = list[i].trim();
      if (!IDENT.test(p) || KEYWORDS[p] || LITERALS[p]) return null;
      scope[p] = true;
    }
    return scope;
  }

  // Conservative: a function is pure only when its body is, in a tiny grammar, a list of local
  // declarations and `if (e) return e;` ending in `return e;` (or an arrow's expression), where e uses literals,
  // its own parameters and locals, a few global functions (Math, Number, String, isNaN...),
  // property reads (a[i] too; dotted constructor/__proto__/prototype refused outright), the usual
  // operators, and calls only of `.name(...)` where every method of that name in the page is
  // side-effect free (toFixed, toLocaleString, slice, round...): a computed read is never called.
  // No assignment, no `new`, no object, array or function literals, no loops, no `this`:
  // such a function can read, compute and return, nothing else. Anything else is impure and its
  // page is reset as before.
  /** True when a function with these parameters and this body (a block's inside, or an arrow's
   *  expression when `expression`) provably changes nothing outside its call. */
  function isPure(params, body, expression) {
    if (typeof params !== 'string' || typeof body !== 'string' || body.length > 2000) return false;
    var scope = scopeOf(params);
    var tokens = scope && tokenize(body);
    if (!tokens || tokens.length > 400) return false;
    try {
      var p = new Parser(tokens, scope);
      if (expression) {
        p.expr();
        p.end();
      } else p.body();
      return true;
    } catch (e) {
      return false;
    }
  }

  // Runs before any caller code in the document; also loaded by a unit test in Node
  // (test/unit/pure-functions.test.ts), hence `root` rather than `window`.
  Object.defineProperty(root, 'ChartshotIsPure', { value: isPure, writable: false, configurable: false, enumerable: false });
})(typeof window !== 'undefined' ? window : globalThis);
