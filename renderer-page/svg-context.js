// A 2D context that draws into an SVG document: svgcanvas's Context with the parts Chart.js trips
// over replaced. Why, and what was measured: docs/decisions/0009-svg-output.md.
(function () {
  'use strict';
  var Base = window.svgcanvas && window.svgcanvas.Context;
  if (typeof Base !== 'function') throw new Error('svgcanvas.Context missing');
  var SVGNS = 'http://www.w3.org/2000/svg';
  var XMLNS = 'http://www.w3.org/XML/1998/namespace';
  var TAU = Math.PI * 2;
  var HALF_PI = Math.PI / 2;

  var probeCanvas = document.createElement('canvas');
  probeCanvas.width = 1;
  probeCanvas.height = 1;
  var probe = probeCanvas.getContext('2d');
  var probeSpan = document.createElement('span');

  function num(v) {
    var r = Math.round(v * 1000) / 1000;
    return r === 0 ? '0' : String(r);
  }
  function fin(v) { return typeof v === 'number' ? isFinite(v) : isFinite(+v); }

  function boundedSet(map, key, value) {
    if (map.size > 2000) map.clear();
    map.set(key, value);
    return value;
  }

  // Colour -> { c: 'rgb(...)' | '#rrggbb', a: alpha } as the canvas itself understands it; null if invalid.
  var colorCache = new Map();
  // this page's caches start empty at every render, as the bundles' do (state.js)
  if (typeof __chartshotState === 'function') __chartshotState('svg-context.js:colorCache', 'restore', function () { return colorCache; });
  function parseColor(value) {
    var key = String(value);
    var hit = colorCache.get(key);
    if (hit !== undefined) return hit;
    probe.fillStyle = '#000000';
    probe.fillStyle = key;
    var norm = probe.fillStyle;
    if (norm === '#000000') {
      probe.fillStyle = '#ffffff';
      probe.fillStyle = key;
      if (probe.fillStyle === '#ffffff') return boundedSet(colorCache, key, null);
    }
    var out;
    var m = /^rgba\((\d+), (\d+), (\d+), ([\d.e-]+)\)$/.exec(norm);
    if (m) out = { raw: norm, c: 'rgb(' + m[1] + ',' + m[2] + ',' + m[3] + ')', a: +m[4] };
    else out = { raw: norm, c: norm, a: 1 };
    return boundedSet(colorCache, key, out);
  }

  // Font -> normalised canvas font string and its CSS parts; null if the canvas would reject it.
  var fontCache = new Map();
  if (typeof __chartshotState === 'function') __chartshotState('svg-context.js:fontCache', 'restore', function () { return fontCache; });
  function parseFont(value) {
    var key = String(value);
    var hit = fontCache.get(key);
    if (hit !== undefined) return hit;
    probe.font = '10px sans-serif';
    probe.font = key;
    var norm = probe.font;
    if (norm === '10px sans-serif' && !/^\s*10px\s+sans-serif\s*$/.test(key)) {
      probe.font = '11px serif';
      probe.font = key;
      if (probe.font === '11px serif') return boundedSet(fontCache, key, null);
    }
    probeSpan.style.font = norm;
    var s = probeSpan.style;
    var out = {
      norm: norm,
      family: (s.fontFamily || 'sans-serif').replace(/"/g, "'"),
      size: s.fontSize || '10px',
      style: s.fontStyle,
      weight: s.fontWeight,
      variant: s.fontVariant,
      stretch: s.fontStretch,
    };
    return boundedSet(fontCache, key, out);
  }

  // Distance from the requested textBaseline to the alphabetic baseline, measured by the canvas.
  var baselineCache = new Map();
  if (typeof __chartshotState === 'function') __chartshotState('svg-context.js:baselineCache', 'restore', function () { return baselineCache; });
  function baselineShift(font, baseline) {
    if (baseline === 'alphabetic') return 0;
    var key = baseline + '|' + font;
    var hit = baselineCache.get(key);
    if (hit !== undefined) return hit;
    probe.font = font;
    probe.textBaseline = 'alphabetic';
    var alpha = probe.measureText('Hg').fontBoundingBoxAscent;
    probe.textBaseline = baseline;
    var other = probe.measureText('Hg').fontBoundingBoxAscent;
    probe.textBaseline = 'alphabetic';
    return boundedSet(baselineCache, key, alpha - other);
  }

  var BLACK = { raw: '#000000', c: '#000000', a: 1 };
  var CAPS = { butt: 1, round: 1, square: 1 };
  var JOINS = { miter: 1, round: 1, bevel: 1 };
  var ALIGNS = { start: 1, end: 1, left: 1, right: 1, center: 1 };
  var BASELINES = { top: 1, hanging: 1, middle: 1, alphabetic: 1, ideographic: 1, bottom: 1 };

  function defaultState() {
    return {
      fill: BLACK, stroke: BLACK, lineWidth: 1, lineCap: 'butt', lineJoin: 'miter', miterLimit: 10,
      lineDash: [], lineDashOffset: 0, globalAlpha: 1, gco: 'source-over', font: '10px sans-serif',
      textAlign: 'start', textBaseline: 'alphabetic', direction: 'inherit',
      shadowColor: 'rgba(0, 0, 0, 0)', shadowBlur: 0, shadowOffsetX: 0, shadowOffsetY: 0,
    };
  }

  function isSvgPaint(v) {
    // svgcanvas's CanvasGradient / CanvasPattern: { __root: <linearGradient|radialGradient|pattern>, __ctx }
    return v !== null && typeof v === 'object' && v.__root && v.__ctx && typeof v.__root.getAttribute === 'function';
  }

  // What differs from svgcanvas's Context (document, defs, transforms, gradients, drawImage, measureText):
  // - every fill()/stroke() paints a snapshot of the current path (canvas semantics), so clip() no
  //   longer consumes the path and fill('evenodd') / clip('evenodd') keep their rule;
  // - fill(Path2D)/stroke(Path2D)/clip(Path2D) replay the recording Path2D of path2d-recorder.js;
  // - non-finite arguments are ignored like a canvas does (no NaN in paths), arcs follow Chromium's
  //   angle rules and full circles are two exact half arcs;
  // - paths are built in an array (svgcanvas re-scans the whole path string on every lineTo);
  // - state setters validate like a canvas (lineWidth 0 or an invalid colour is ignored) and colours
  //   are normalised by a real canvas context;
  // - text is positioned on the alphabetic baseline using the canvas's own font metrics, no
  //   text-decoration="undefined";
  // - element ids are sequential per document, so the same chart gives byte-identical SVG.
  function SvgContext(options) {
    this.__cs = defaultState();
    this.__stack = [];
    this.__seq = 0;
    this.__d = [];
    this.__dJoined = null;
    this.__ver = 0;
    this.__hasSub = false;
    this.__subStart = { x: 0, y: 0 };
    this.__lastPaint = null;
    Base.call(this, options);
    this.__rootGroup = this.__root.childNodes[1];
    this.__group = this.__rootGroup;
    // Canvas's default miter limit is 10, SVG's 4: set it once, inherited by every stroke.
    this.__rootGroup.setAttribute('stroke-miterlimit', '10');
    this.__root.setAttribute('viewBox', '0 0 ' + this.width + ' ' + this.height);
    this.__currentPosition = {};
  }
  SvgContext.prototype = Object.create(Base.prototype);
  SvgContext.prototype.constructor = SvgContext;
  var P = SvgContext.prototype;

  function accessor(name, get, set) {
    Object.defineProperty(P, name, { get: get, set: set, configurable: true, enumerable: true });
  }
  function paintAccessor(name, key) {
    accessor(name, function () {
      var p = this.__cs[key];
      return p.raw !== undefined ? p.raw : p.obj;
    }, function (v) {
      if (isSvgPaint(v)) { this.__cs[key] = { obj: v }; return; }
      if (typeof v === 'object' && v !== null && !(v instanceof String)) return;
      var c = parseColor(v);
      if (c) this.__cs[key] = c;
    });
  }
  paintAccessor('fillStyle', 'fill');
  paintAccessor('strokeStyle', 'stroke');
  function numAccessor(name, valid) {
    accessor(name, function () { return this.__cs[name]; }, function (v) {
      v = +v;
      if (isFinite(v) && valid(v)) this.__cs[name] = v;
    });
  }
  numAccessor('lineWidth', function (v) { return v > 0; });
  numAccessor('miterLimit', function (v) { return v > 0; });
  numAccessor('globalAlpha', function (v) { return v >= 0 && v <= 1; });
  numAccessor('lineDashOffset', function () { return true; });
  numAccessor('shadowBlur', function (v) { return v >= 0; });
  numAccessor('shadowOffsetX', function () { return true; });
  numAccessor('shadowOffsetY', function () { return true; });
  function enumAccessor(name, allowed) {
    accessor(name, function () { return this.__cs[name]; }, function (v) {
      if (Object.prototype.hasOwnProperty.call(allowed, v)) this.__cs[name] = String(v);
    });
  }
  enumAccessor('lineCap', CAPS);
  enumAccessor('lineJoin', JOINS);
  enumAccessor('textAlign', ALIGNS);
  enumAccessor('textBaseline', BASELINES);
  enumAccessor('direction', { ltr: 1, rtl: 1, inherit: 1 });
  accessor('globalCompositeOperation', function () { return this.__cs.gco; }, function (v) {
    if (typeof v === 'string') this.__cs.gco = v;
  });
  accessor('font', function () { return this.__cs.font; }, function (v) {
    var f = parseFont(v);
    if (f) this.__cs.font = f.norm;
  });
  accessor('shadowColor', function () { return this.__cs.shadowColor; }, function (v) {
    var c = parseColor(v);
    if (c) this.__cs.shadowColor = c.raw;
  });
  // svgcanvas keeps the dash under this name; its constructor assigns [] to it.
  accessor('lineDash', function () { return this.__cs.lineDash.slice(); }, function (v) {
    this.setLineDash(Array.isArray(v) ? v : []);
  });

  P.setLineDash = function (segments) {
    if (!segments || typeof segments.length !== 'number') return;
    var list = Array.prototype.slice.call(segments).map(Number);
    for (var i = 0; i < list.length; i++) if (!isFinite(list[i]) || list[i] < 0) return;
    if (list.length % 2) list = list.concat(list);
    this.__cs.lineDash = list;
  };
  P.getLineDash = function () { return this.__cs.lineDash.slice(); };

  P.__nextId = function (kind) {
    this.__seq += 1;
    return 'cs-' + kind + this.__seq;
  };
  P.__el = function (name) { return this.__document.createElementNS(SVGNS, name); };

  // ---- state -------------------------------------------------------------------------------
  P.save = function () {
    var cs = this.__cs;
    var copy = {};
    for (var k in cs) copy[k] = cs[k];
    this.__stack.push({ cs: cs, m: this.__transformMatrix, g: this.__group });
    this.__cs = copy;
  };
  P.restore = function () {
    var s = this.__stack.pop();
    if (!s) return;
    this.__cs = s.cs;
    this.__transformMatrix = s.m;
    this.__group = s.g;
    this.__lastPaint = null;
  };
  P.reset = function () {
    this.__stack = [];
    this.__cs = defaultState();
    this.resetTransform();
    this.beginPath();
    this.__clearAll();
  };

  var baseSetTransform = Base.prototype.setTransform;
  P.setTransform = function (a, b, c, d, e, f) {
    if (a !== null && typeof a === 'object') {
      var m = a;
      a = m.a; b = m.b; c = m.c; d = m.d; e = m.e; f = m.f;
      if (a === undefined) a = m.m11;
      if (b === undefined) b = m.m12;
      if (c === undefined) c = m.m21;
      if (d === undefined) d = m.m22;
      if (e === undefined) e = m.m41;
      if (f === undefined) f = m.m42;
      a = a === undefined ? 1 : a; b = b || 0; c = c || 0; d = d === undefined ? 1 : d; e = e || 0; f = f || 0;
    }
    if (!(fin(a) && fin(b) && fin(c) && fin(d) && fin(e) && fin(f))) return;
    baseSetTransform.call(this, +a, +b, +c, +d, +e, +f);
  };
  P.resetTransform = function () { baseSetTransform.call(this, 1, 0, 0, 1, 0, 0); };
  P.transform = function (a, b, c, d, e, f) {
    if (!(fin(a) && fin(b) && fin(c) && fin(d) && fin(e) && fin(f))) return;
    this.__transformMatrix = this.getTransform().multiply(new DOMMatrix([+a, +b, +c, +d, +e, +f]));
  };
  P.translate = function (x, y) {
    if (!(fin(x) && fin(y))) return;
    if (+x === 0 && +y === 0) return;
    this.__transformMatrix = this.getTransform().translate(+x, +y);
  };
  P.scale = function (x, y) {
    if (!(fin(x) && fin(y))) return;
    this.__transformMatrix = this.getTransform().scale(+x, +y);
  };
  P.rotate = function (angle) {
    if (!fin(angle)) return;
    if (+angle === 0) return;
    var cos = Math.cos(angle), sin = Math.sin(angle);
    this.__transformMatrix = this.getTransform().multiply(new DOMMatrix([cos, sin, -sin, cos, 0, 0]));
  };

  // ---- paths -------------------------------------------------------------------------------
  P.__pt = function (x, y) {
    var m = this.__transformMatrix;
    return num(m.a * x + m.c * y + m.e) + ' ' + num(m.b * x + m.d * y + m.f);
  };
  P.__touch = function () { this.__ver += 1; this.__dJoined = null; };

  P.beginPath = function () {
    this.__d = [];
    this.__hasSub = false;
    this.__currentPosition = {};
    this.__touch();
  };
  P.moveTo = function (x, y) {
    if (!(fin(x) && fin(y))) return;
    x = +x; y = +y;
    this.__d.push('M' + this.__pt(x, y));
    this.__hasSub = true;
    this.__subStart = { x: x, y: y };
    this.__currentPosition = { x: x, y: y };
    this.__touch();
  };
  P.lineTo = function (x, y) {
    if (!(fin(x) && fin(y))) return;
    if (!this.__hasSub) { this.moveTo(x, y); return; }
    x = +x; y = +y;
    this.__d.push('L' + this.__pt(x, y));
    this.__currentPosition = { x: x, y: y };
    this.__touch();
  };
  P.closePath = function () {
    if (!this.__hasSub) return;
    this.__d.push('Z');
    this.__currentPosition = { x: this.__subStart.x, y: this.__subStart.y };
    this.__touch();
  };
  P.quadraticCurveTo = function (cx, cy, x, y) {
    if (!(fin(cx) && fin(cy) && fin(x) && fin(y))) return;
    if (!this.__hasSub) this.moveTo(cx, cy);
    this.__d.push('Q' + this.__pt(+cx, +cy) + ' ' + this.__pt(+x, +y));
    this.__currentPosition = { x: +x, y: +y };
    this.__touch();
  };
  P.bezierCurveTo = function (c1x, c1y, c2x, c2y, x, y) {
    if (!(fin(c1x) && fin(c1y) && fin(c2x) && fin(c2y) && fin(x) && fin(y))) return;
    if (!this.__hasSub) this.moveTo(c1x, c1y);
    this.__d.push('C' + this.__pt(+c1x, +c1y) + ' ' + this.__pt(+c2x, +c2y) + ' ' + this.__pt(+x, +y));
    this.__currentPosition = { x: +x, y: +y };
    this.__touch();
  };
  P.rect = function (x, y, w, h) {
    if (!(fin(x) && fin(y) && fin(w) && fin(h))) return;
    x = +x; y = +y; w = +w; h = +h;
    this.__d.push('M' + this.__pt(x, y) + 'L' + this.__pt(x + w, y) + 'L' + this.__pt(x + w, y + h) +
      'L' + this.__pt(x, y + h) + 'Z');
    this.__hasSub = true;
    this.__subStart = { x: x, y: y };
    this.__currentPosition = { x: x, y: y };
    this.__touch();
  };
  P.arc = function (x, y, r, start, end, ccw) {
    if (!(fin(x) && fin(y) && fin(r) && fin(start) && fin(end))) return;
    if (r < 0) throw new DOMException('The radius provided (' + r + ') is negative.', 'IndexSizeError');
    this.__ellipse(+x, +y, +r, +r, 0, +start, +end, !!ccw);
  };
  P.ellipse = function (x, y, rx, ry, rot, start, end, ccw) {
    if (!(fin(x) && fin(y) && fin(rx) && fin(ry) && fin(rot) && fin(start) && fin(end))) return;
    if (rx < 0 || ry < 0) throw new DOMException('The radius provided is negative.', 'IndexSizeError');
    this.__ellipse(+x, +y, +rx, +ry, +rot, +start, +end, !!ccw);
  };
  P.__ellipse = function (x, y, rx, ry, rot, start, end, ccw) {
    // Sweep as Chromium computes it (CanvasPath AdjustEndAngle).
    var sweep;
    if (!ccw) {
      if (end - start >= TAU) sweep = TAU;
      else if (start > end) sweep = TAU - ((start - end) % TAU);
      else sweep = end - start;
    } else if (start - end >= TAU) sweep = -TAU;
    else if (start < end) sweep = -(TAU - ((end - start) % TAU));
    else sweep = end - start;

    var cosR = Math.cos(rot), sinR = Math.sin(rot);
    var pointAt = function (t) {
      var ex = rx * Math.cos(t), ey = ry * Math.sin(t);
      return { x: x + ex * cosR - ey * sinR, y: y + ex * sinR + ey * cosR };
    };
    var p0 = pointAt(start);
    if (this.__hasSub) this.__d.push('L' + this.__pt(p0.x, p0.y));
    else {
      this.__d.push('M' + this.__pt(p0.x, p0.y));
      this.__hasSub = true;
      this.__subStart = p0;
    }
    this.__currentPosition = p0;
    this.__touch();
    if (sweep === 0 || (rx === 0 && ry === 0)) return;

    var m = this.__transformMatrix;
    var similar = Math.abs(m.a - m.d) < 1e-9 && Math.abs(m.b + m.c) < 1e-9;
    var i, t0, t1, p;
    if (similar) {
      // Elliptical arc commands cut where Chromium's canvas cuts its conics (Skia: a full turn is
      // two half turns; otherwise quarter turns from the start angle, then the remainder), so
      // the SVG rasterises with the same curve pieces as the canvas.
      var k = Math.hypot(m.a, m.b);
      var rotDeg = (rot + Math.atan2(m.b, m.a)) * 180 / Math.PI;
      var radii = num(rx * k) + ' ' + num(ry * k) + ' ' + num(rotDeg) + ' 0 ' + (sweep > 0 ? 1 : 0) + ' ';
      var abs = Math.abs(sweep), dir = sweep > 0 ? 1 : -1, done = 0;
      var steps = [];
      if (Math.abs(abs - TAU) < 1e-6) steps.push(Math.PI, Math.PI);
      else {
        while (abs - done > HALF_PI + 1e-9) { steps.push(HALF_PI); done += HALF_PI; }
        steps.push(abs - done);
      }
      var angle = start;
      for (i = 0; i < steps.length; i++) {
        angle = i === steps.length - 1 ? start + sweep : angle + dir * steps[i];
        p = pointAt(angle);
        this.__d.push('A' + radii + this.__pt(p.x, p.y));
      }
      this.__currentPosition = p;
      return;
    }
    // Skewed or unevenly scaled: cubic segments of at most a quarter turn (affine-exact).
    var segs = Math.max(1, Math.ceil(Math.abs(sweep) / HALF_PI - 1e-9));
    var delta = sweep / segs;
    var kappa = 4 / 3 * Math.tan(delta / 4);
    for (i = 0; i < segs; i++) {
      t0 = start + delta * i;
      t1 = t0 + delta;
      var c0 = Math.cos(t0), s0 = Math.sin(t0), c1 = Math.cos(t1), s1 = Math.sin(t1);
      var local = [
        [c0 - kappa * s0, s0 + kappa * c0],
        [c1 + kappa * s1, s1 - kappa * c1],
        [c1, s1],
      ];
      var parts = [];
      for (var j = 0; j < 3; j++) {
        var ex = rx * local[j][0], ey = ry * local[j][1];
        parts.push(this.__pt(x + ex * cosR - ey * sinR, y + ex * sinR + ey * cosR));
      }
      this.__d.push('C' + parts.join(' '));
    }
    this.__currentPosition = pointAt(start + sweep);
  };
  P.roundRect = function (x, y, w, h, radii) {
    if (!(fin(x) && fin(y) && fin(w) && fin(h))) return;
    x = +x; y = +y; w = +w; h = +h;
    var list = radii === undefined ? [0] : (Array.isArray(radii) ? radii : [radii]);
    if (list.length < 1 || list.length > 4) throw new RangeError('roundRect: 1 to 4 radii expected');
    var r = list.map(function (v) {
      var n = typeof v === 'object' && v !== null ? +v.x : +v;
      if (!isFinite(n)) n = 0;
      if (n < 0) throw new RangeError('roundRect: negative radius');
      return n;
    });
    var tl, tr, br, bl;
    if (r.length === 1) { tl = tr = br = bl = r[0]; }
    else if (r.length === 2) { tl = br = r[0]; tr = bl = r[1]; }
    else if (r.length === 3) { tl = r[0]; tr = bl = r[1]; br = r[2]; }
    else { tl = r[0]; tr = r[1]; br = r[2]; bl = r[3]; }
    var aw = Math.abs(w), ah = Math.abs(h);
    var scale = Math.min(1, aw / (tl + tr || 1), aw / (bl + br || 1), ah / (tl + bl || 1), ah / (tr + br || 1));
    tl *= scale; tr *= scale; br *= scale; bl *= scale;
    this.moveTo(x + tl, y);
    this.lineTo(x + w - tr, y);
    if (tr) this.__ellipse(x + w - tr, y + tr, tr, tr, 0, -HALF_PI, 0, false);
    this.lineTo(x + w, y + h - br);
    if (br) this.__ellipse(x + w - br, y + h - br, br, br, 0, 0, HALF_PI, false);
    this.lineTo(x + bl, y + h);
    if (bl) this.__ellipse(x + bl, y + h - bl, bl, bl, 0, HALF_PI, Math.PI, false);
    this.lineTo(x, y + tl);
    if (tl) this.__ellipse(x + tl, y + tl, tl, tl, 0, Math.PI, Math.PI * 1.5, false);
    this.closePath();
    this.moveTo(x, y);
  };

  P.__currentD = function () {
    if (this.__dJoined === null) this.__dJoined = this.__d.join('');
    return this.__dJoined;
  };
  // Path data of a recording Path2D under the current transform, without touching the current path.
  P.__pathDataOf = function (path) {
    var rec = window.__chartshotPath2D;
    if (!rec || !path || !path.__ops) return '';
    var saved = [this.__d, this.__hasSub, this.__subStart, this.__currentPosition, this.__dJoined, this.__ver];
    this.__d = [];
    this.__hasSub = false;
    this.__currentPosition = {};
    try {
      rec.replay(path, this, 0);
      return this.__d.join('');
    } finally {
      this.__d = saved[0];
      this.__hasSub = saved[1];
      this.__subStart = saved[2];
      this.__currentPosition = saved[3];
      this.__dJoined = saved[4];
      this.__ver = saved[5];
    }
  };
  P.__addRecordedPath = function (path, matrix, depth) {
    var rec = window.__chartshotPath2D;
    if (!rec || !path || !path.__ops) return;
    if (!matrix) { rec.replay(path, this, depth); return; }
    var m = this.__transformMatrix;
    this.transform(matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f);
    try { rec.replay(path, this, depth); } finally { this.__transformMatrix = m; }
  };
  P.__addSvgPathData = function (d) {
    // new Path2D('<svg path data>'): only exact under a pure translation; Chart.js never does this.
    var m = this.__transformMatrix;
    if (m.a === 1 && m.b === 0 && m.c === 0 && m.d === 1 && m.e === 0 && m.f === 0 && typeof d === 'string' &&
      /^[\s\d.,eE+\-MmLlHhVvCcSsQqTtAaZz]*$/.test(d)) {
      this.__d.push(' ' + d + ' ');
      this.__hasSub = true;
      this.__touch();
    }
  };

  // ---- painting ----------------------------------------------------------------------------
  P.__strokeScale = function () {
    var m = this.__transformMatrix;
    return Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
  };
  P.__applyPaint = function (el, kind, rule) {
    var cs = this.__cs;
    var p = kind === 'fill' ? cs.fill : cs.stroke;
    var alpha = cs.globalAlpha;
    if (p.obj) {
      var id = p.obj.__root.getAttribute('id');
      if (p.obj.__ctx && p.obj.__ctx !== this && p.obj.__ctx.__defs) {
        // a pattern built on another svg context: bring its defs along
        var defs = p.obj.__ctx.__defs;
        while (defs.firstChild) this.__defs.appendChild(defs.firstChild);
      }
      el.setAttribute(kind, 'url(#' + id + ')');
    } else {
      el.setAttribute(kind, p.c);
      alpha *= p.a;
    }
    if (alpha !== 1) el.setAttribute(kind + '-opacity', String(Math.round(alpha * 10000) / 10000));
    if (kind === 'fill') {
      if (rule === 'evenodd') el.setAttribute('fill-rule', 'evenodd');
      return;
    }
    var sc = this.__strokeScale();
    var w = cs.lineWidth * sc;
    if (w !== 1) el.setAttribute('stroke-width', num(w));
    if (cs.lineCap !== 'butt') el.setAttribute('stroke-linecap', cs.lineCap);
    if (cs.lineJoin !== 'miter') el.setAttribute('stroke-linejoin', cs.lineJoin);
    else if (cs.miterLimit !== 10) el.setAttribute('stroke-miterlimit', num(cs.miterLimit));
    if (cs.lineDash.length) {
      el.setAttribute('stroke-dasharray', cs.lineDash.map(function (v) { return num(v * sc); }).join(' '));
      if (cs.lineDashOffset) el.setAttribute('stroke-dashoffset', num(cs.lineDashOffset * sc));
    }
  };
  P.__emit = function (el) {
    var gco = this.__cs.gco;
    if (gco === 'destination-over') {
      // Painting behind everything drawn so far == first in document order.
      var root = this.__rootGroup;
      var node = el;
      if (this.__group !== root && this.__group.getAttribute('clip-path')) {
        node = this.__el('g');
        node.setAttribute('clip-path', this.__group.getAttribute('clip-path'));
        node.appendChild(el);
      }
      root.insertBefore(node, root.firstChild);
      return;
    }
    this.__group.appendChild(el);
  };
  P.__paint = function (kind, d, rule, ver) {
    if (!d) return;
    var last = this.__lastPaint;
    if (ver >= 0 && last && last.ver === ver && !last[kind] && last.group === this.__group &&
      this.__group.lastChild === last.el && this.__cs.gco !== 'destination-over') {
      // Same path painted again (fill then stroke, as Chart.js does): one element does both.
      this.__applyPaint(last.el, kind, rule);
      if (kind === 'fill') last.el.setAttribute('paint-order', 'stroke');
      last[kind] = true;
      return;
    }
    var el = this.__el('path');
    el.setAttribute('d', d);
    if (kind === 'stroke') el.setAttribute('fill', 'none');
    this.__applyPaint(el, kind, rule);
    this.__emit(el);
    this.__lastPaint = { el: el, ver: ver, group: this.__group, fill: kind === 'fill', stroke: kind === 'stroke' };
  };
  P.fill = function (a, b) {
    if (a !== null && typeof a === 'object') {
      this.__paint('fill', this.__pathDataOf(a), b, -1);
      return;
    }
    this.__paint('fill', this.__currentD(), a, this.__ver);
  };
  P.stroke = function (path) {
    if (path !== null && typeof path === 'object') {
      this.__paint('stroke', this.__pathDataOf(path), undefined, -1);
      return;
    }
    this.__paint('stroke', this.__currentD(), undefined, this.__ver);
  };
  P.clip = function (a, b) {
    var d, rule;
    if (a !== null && typeof a === 'object') { d = this.__pathDataOf(a); rule = b; }
    else { d = this.__currentD(); rule = a; }
    d = d || 'M0 0Z';
    rule = rule === 'evenodd' ? 'evenodd' : 'nonzero';
    // Chart.js clips to the same chart area many times: one clipPath per distinct shape.
    if (!this.__clipIds) this.__clipIds = new Map();
    var key = rule + d;
    var id = this.__clipIds.get(key);
    if (!id) {
      id = this.__nextId('clip');
      this.__clipIds.set(key, id);
      var clipPath = this.__el('clipPath');
      clipPath.setAttribute('id', id);
      var p = this.__el('path');
      p.setAttribute('d', d);
      if (rule === 'evenodd') p.setAttribute('clip-rule', 'evenodd');
      clipPath.appendChild(p);
      this.__defs.appendChild(clipPath);
    }
    var g = this.__el('g');
    g.setAttribute('clip-path', 'url(#' + id + ')');
    this.__group.appendChild(g);
    this.__group = g;
    this.__lastPaint = null;
  };
  P.__rectPath = function (x, y, w, h) {
    return 'M' + this.__pt(x, y) + 'L' + this.__pt(x + w, y) + 'L' + this.__pt(x + w, y + h) +
      'L' + this.__pt(x, y + h) + 'Z';
  };
  P.fillRect = function (x, y, w, h) {
    if (!(fin(x) && fin(y) && fin(w) && fin(h))) return;
    x = +x; y = +y; w = +w; h = +h;
    if (w === 0 || h === 0) return;
    var m = this.__transformMatrix;
    var el;
    if (m.a === 1 && m.b === 0 && m.c === 0 && m.d === 1) {
      if (w < 0) { x += w; w = -w; }
      if (h < 0) { y += h; h = -h; }
      el = this.__el('rect');
      el.setAttribute('x', num(x + m.e));
      el.setAttribute('y', num(y + m.f));
      el.setAttribute('width', num(w));
      el.setAttribute('height', num(h));
    } else {
      el = this.__el('path');
      el.setAttribute('d', this.__rectPath(x, y, w, h));
    }
    this.__applyPaint(el, 'fill');
    this.__emit(el);
    this.__lastPaint = null;
  };
  P.strokeRect = function (x, y, w, h) {
    if (!(fin(x) && fin(y) && fin(w) && fin(h))) return;
    x = +x; y = +y; w = +w; h = +h;
    if (w === 0 && h === 0) return;
    var el = this.__el('path');
    el.setAttribute('d', this.__rectPath(x, y, w, h));
    el.setAttribute('fill', 'none');
    this.__applyPaint(el, 'stroke');
    this.__emit(el);
    this.__lastPaint = null;
  };
  P.__clearAll = function () {
    // Keep the chain of groups the current state draws into (clips), drop everything else.
    var keep = new Set();
    for (var g = this.__group; g && g !== this.__root; g = g.parentNode) keep.add(g);
    var walk = this.__rootGroup;
    while (walk) {
      var next = null;
      for (var c = walk.firstChild; c;) {
        var n = c.nextSibling;
        if (keep.has(c)) next = c; else walk.removeChild(c);
        c = n;
      }
      walk = next;
    }
    this.__lastPaint = null;
  };
  P.clearRect = function (x, y, w, h) {
    if (!(fin(x) && fin(y) && fin(w) && fin(h))) return;
    var m = this.__transformMatrix;
    // SVG cannot erase; a clear of the whole canvas (Chart.js's clear()) drops what was drawn.
    if (m.b === 0 && m.c === 0 && m.a > 0 && m.d > 0) {
      var x0 = m.a * x + m.e, y0 = m.d * y + m.f, x1 = x0 + m.a * w, y1 = y0 + m.d * h;
      if (Math.min(x0, x1) <= 0 && Math.min(y0, y1) <= 0 && Math.max(x0, x1) >= this.width &&
        Math.max(y0, y1) >= this.height) this.__clearAll();
    }
  };

  // ---- text --------------------------------------------------------------------------------
  P.__text = function (text, x, y, maxWidth, kind) {
    if (!(fin(x) && fin(y))) return;
    if (maxWidth !== undefined && !(fin(maxWidth) && maxWidth > 0)) return;
    text = String(text).replace(/[\t\n\f\r\v]/g, ' ');
    var cs = this.__cs;
    var f = parseFont(cs.font) || parseFont('10px sans-serif');
    x = +x;
    y = +y + baselineShift(f.norm, cs.textBaseline);
    var rtl = cs.direction === 'rtl';
    var align = cs.textAlign;
    var anchor = align === 'center' ? 'middle'
      : (align === 'right' || (align === 'end' && !rtl) || (align === 'start' && rtl)) ? 'end' : 'start';
    var el = this.__el('text');
    var m = this.__transformMatrix;
    if (m.a === 1 && m.b === 0 && m.c === 0 && m.d === 1) {
      el.setAttribute('x', num(x + m.e));
      el.setAttribute('y', num(y + m.f));
    } else {
      el.setAttribute('x', num(x));
      el.setAttribute('y', num(y));
      el.setAttribute('transform', 'matrix(' + [m.a, m.b, m.c, m.d, m.e, m.f].map(function (v) {
        return String(Math.round(v * 1e6) / 1e6);
      }).join(' ') + ')');
    }
    el.setAttribute('font-family', f.family);
    el.setAttribute('font-size', f.size);
    if (f.style && f.style !== 'normal') el.setAttribute('font-style', f.style);
    if (f.weight && f.weight !== 'normal' && f.weight !== '400') el.setAttribute('font-weight', f.weight);
    if (f.variant && f.variant !== 'normal') el.setAttribute('font-variant', f.variant);
    if (f.stretch && f.stretch !== 'normal' && f.stretch !== '100%') el.setAttribute('font-stretch', f.stretch);
    if (anchor !== 'start') el.setAttribute('text-anchor', anchor);
    if (rtl) el.setAttribute('direction', 'rtl');
    el.setAttributeNS(XMLNS, 'xml:space', 'preserve');
    if (maxWidth !== undefined) {
      probe.font = f.norm;
      if (probe.measureText(text).width > maxWidth) {
        el.setAttribute('textLength', num(maxWidth));
        el.setAttribute('lengthAdjust', 'spacingAndGlyphs');
      }
    }
    if (kind === 'stroke') el.setAttribute('fill', 'none');
    this.__applyPaint(el, kind);
    el.textContent = text;
    this.__emit(el);
    this.__lastPaint = null;
  };
  P.fillText = function (text, x, y, maxWidth) { this.__text(text, x, y, maxWidth, 'fill'); };
  P.strokeText = function (text, x, y, maxWidth) { this.__text(text, x, y, maxWidth, 'stroke'); };
  P.measureText = function (text) {
    probe.font = this.__cs.font;
    probe.textAlign = this.__cs.textAlign;
    probe.textBaseline = this.__cs.textBaseline;
    var metrics = probe.measureText(String(text));
    probe.textAlign = 'start';
    probe.textBaseline = 'alphabetic';
    return metrics;
  };

  // ---- gradients, patterns, images: svgcanvas's, with sequential ids ----------------------
  P.createLinearGradient = function (x0, y0, x1, y1) {
    if (!(fin(x0) && fin(y0) && fin(x1) && fin(y1))) throw new TypeError('non-finite gradient coordinates');
    var g = Base.prototype.createLinearGradient.call(this, x0, y0, x1, y1);
    g.__root.setAttribute('id', this.__nextId('grad'));
    this.__gradientTransform(g.__root);
    return g;
  };
  P.createRadialGradient = function (x0, y0, r0, x1, y1, r1) {
    if (!(fin(x0) && fin(y0) && fin(r0) && fin(x1) && fin(y1) && fin(r1))) throw new TypeError('non-finite gradient coordinates');
    if (r0 < 0 || r1 < 0) throw new DOMException('The radius provided is negative.', 'IndexSizeError');
    var g = Base.prototype.createRadialGradient.call(this, x0, y0, r0, x1, y1, r1);
    g.__root.setAttribute('id', this.__nextId('grad'));
    g.__root.setAttribute('fr', r0 + 'px');
    this.__gradientTransform(g.__root);
    return g;
  };
  P.createConicGradient = function () {
    throw new Error('conic gradients are not supported in SVG output');
  };
  P.__gradientTransform = function (node) {
    // Gradient coordinates are in the user space current at creation; our paths are in device space.
    var m = this.__transformMatrix;
    if (!(m.a === 1 && m.b === 0 && m.c === 0 && m.d === 1 && m.e === 0 && m.f === 0)) {
      node.setAttribute('gradientTransform', 'matrix(' + [m.a, m.b, m.c, m.d, m.e, m.f].join(' ') + ')');
    }
  };
  P.createPattern = function (image, repetition) {
    var p = Base.prototype.createPattern.call(this, image, repetition);
    if (p && p.__root) p.__root.setAttribute('id', this.__nextId('pattern'));
    return p;
  };
  P.drawImage = function () {
    this.__currentElement = this.__group;
    this.__lastPaint = null;
    return Base.prototype.drawImage.apply(this, arguments);
  };
  P.isPointInPath = function () { return false; };
  P.isPointInStroke = function () { return false; };
  P.getContextAttributes = function () { return { alpha: true, desynchronized: false, colorSpace: 'srgb', willReadFrequently: false }; };

  // Chart.js clips many layers that end up drawing nothing: drop empty groups and unused clips.
  P.__prune = function () {
    var groups = this.__root.querySelectorAll('g');
    for (var i = groups.length - 1; i >= 0; i--) {
      var g = groups[i];
      if (!g.firstChild && g !== this.__rootGroup && g.parentNode) g.parentNode.removeChild(g);
    }
    var used = new Set();
    this.__root.querySelectorAll('[clip-path]').forEach(function (el) {
      var m = /url\(#([^)]+)\)/.exec(el.getAttribute('clip-path'));
      if (m) used.add(m[1]);
    });
    Array.prototype.slice.call(this.__defs.querySelectorAll('clipPath')).forEach(function (cp) {
      if (!used.has(cp.getAttribute('id'))) cp.parentNode.removeChild(cp);
    });
  };
  P.getSerializedSvg = function () {
    this.__prune();
    return new XMLSerializer().serializeToString(this.__root);
  };

  window.ChartshotSvgContext = SvgContext;
})();
