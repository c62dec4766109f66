// Serialises the SVG tree the canvas-to-SVG context built, keeping only the elements and attributes
// that context emits: whatever caller code appended to the tree does not survive.
(function () {
  'use strict';
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var XLINK_NS = 'http://www.w3.org/1999/xlink';
  var XML_NS = 'http://www.w3.org/XML/1998/namespace';
  var MAX_NESTING = 512;

  var apply = Reflect.apply;
  var getDescriptor = Object.getOwnPropertyDescriptor;
  var hasOwn = Object.prototype.hasOwnProperty;
  function getter(proto, name) { return getDescriptor(proto, name).get; }
  var firstChild = getter(Node.prototype, 'firstChild');
  var nextSibling = getter(Node.prototype, 'nextSibling');
  var nodeType = getter(Node.prototype, 'nodeType');
  var elNamespace = getter(Element.prototype, 'namespaceURI');
  var elLocalName = getter(Element.prototype, 'localName');
  var elAttributes = getter(Element.prototype, 'attributes');
  var mapLength = getter(NamedNodeMap.prototype, 'length');
  var mapItem = NamedNodeMap.prototype.item;
  var attrNamespace = getter(Attr.prototype, 'namespaceURI');
  var attrLocalName = getter(Attr.prototype, 'localName');
  var attrValue = getter(Attr.prototype, 'value');
  var charData = getter(CharacterData.prototype, 'data');
  var strSlice = String.prototype.slice;
  var strCharCodeAt = String.prototype.charCodeAt;

  function own(table, key) { return apply(hasOwn, table, [key]); }
  function code(s, i) { return apply(strCharCodeAt, s, [i]); }
  function slice(s, a, b) { return apply(strSlice, s, [a, b]); }

  // local name (as the DOM reports it) -> name written
  var ELEMENTS = {
    defs: 'defs', g: 'g', path: 'path', rect: 'rect', text: 'text', clipPath: 'clipPath',
    linearGradient: 'linearGradient', radialGradient: 'radialGradient', stop: 'stop', pattern: 'pattern', image: 'image',
  };
  var ATTRIBUTES = {
    id: 1, d: 1, x: 1, y: 1, width: 1, height: 1, transform: 1, fill: 1, stroke: 1, 'fill-opacity': 1,
    'stroke-opacity': 1, 'fill-rule': 1, 'clip-rule': 1, 'clip-path': 1, 'stroke-width': 1, 'stroke-linecap': 1,
    'stroke-linejoin': 1, 'stroke-miterlimit': 1, 'stroke-dasharray': 1, 'stroke-dashoffset': 1, 'paint-order': 1,
    opacity: 1, 'font-family': 1, 'font-size': 1, 'font-style': 1, 'font-weight': 1, 'font-variant': 1,
    'font-stretch': 1, 'text-anchor': 1, direction: 1, textLength: 1, lengthAdjust: 1, x1: 1, y1: 1, x2: 1, y2: 1,
    cx: 1, cy: 1, r: 1, fx: 1, fy: 1, fr: 1, gradientUnits: 1, gradientTransform: 1, offset: 1, 'stop-color': 1,
    'stop-opacity': 1, patternUnits: 1, preserveAspectRatio: 1,
  };

  function TooLarge() {}

  /** Characters XML 1.0 cannot carry (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/FFFF). */
  function invalidAt(s, i, c) {
    if (c < 0x20) return c !== 0x09 && c !== 0x0a && c !== 0x0d;
    if (c === 0xfffe || c === 0xffff) return true;
    if (c >= 0xd800 && c <= 0xdbff) {
      var n = i + 1 < s.length ? code(s, i + 1) : 0;
      return !(n >= 0xdc00 && n <= 0xdfff);
    }
    if (c >= 0xdc00 && c <= 0xdfff) {
      var p = i > 0 ? code(s, i - 1) : 0;
      return !(p >= 0xd800 && p <= 0xdbff);
    }
    return false;
  }

  function Writer(maxBytes) {
    this.out = '';
    this.bytes = 0;
    this.max = maxBytes;
  }
  Writer.prototype.raw = function (s) {
    // only ASCII names and markup reach here
    this.bytes += s.length;
    if (this.bytes > this.max) throw new TooLarge();
    this.out += s;
  };
  /** Escaped for text (attr false) or a double-quoted attribute value (attr true). */
  Writer.prototype.escaped = function (s, attr) {
    var n = s.length;
    if (this.bytes + n > this.max) { this.bytes += n; throw new TooLarge(); }
    var from = 0, bytes = 0, piece = '';
    for (var i = 0; i < n; i++) {
      var c = code(s, i);
      var rep = null;
      if (c === 0x26) rep = '&amp;';
      else if (c === 0x3c) rep = '&lt;';
      else if (c === 0x3e) rep = '&gt;';
      else if (attr && c === 0x22) rep = '&quot;';
      else if (attr && c === 0x09) rep = '&#9;';
      else if (attr && c === 0x0a) rep = '&#10;';
      else if (c === 0x0d) rep = '&#13;';
      else if ((c < 0x20 && c !== 0x09 && c !== 0x0a) || c >= 0xd800) {
        if (invalidAt(s, i, c)) rep = '';
      }
      if (rep !== null) {
        piece += slice(s, from, i) + rep;
        bytes += rep.length;
        from = i + 1;
        continue;
      }
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 2 : c >= 0xdc00 && c <= 0xdfff ? 2 : 3;
    }
    piece += slice(s, from, n);
    this.bytes += bytes;
    if (this.bytes > this.max) throw new TooLarge();
    this.out += piece;
  };

  // No regular expressions or string methods here: caller code may have replaced them.
  function isIdChar(c) {
    return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
      c === 0x5f || c === 0x2e || c === 0x3a || c === 0x2d;
  }
  /** s[from, to) is an id: 1-200 of [A-Za-z0-9_.:-]. */
  function isId(s, from, to) {
    if (to - from < 1 || to - from > 200) return false;
    for (var i = from; i < to; i++) if (!isIdChar(code(s, i))) return false;
    return true;
  }
  /** "#id" */
  function isIdRef(v) {
    return v.length > 1 && code(v, 0) === 0x23 && isId(v, 1, v.length);
  }
  /** "url(#id)" */
  function isUrlRef(v) {
    return v.length > 6 && slice(v, 0, 5) === 'url(#' && code(v, v.length - 1) === 0x29 && isId(v, 5, v.length - 1);
  }
  var IMAGE_PREFIXES = ['data:image/png;base64,', 'data:image/jpeg;base64,', 'data:image/gif;base64,', 'data:image/webp;base64,'];
  /** data:image/(png|jpeg|gif|webp);base64,<base64> */
  function isDataImage(v) {
    var from = -1;
    for (var k = 0; k < IMAGE_PREFIXES.length; k++) {
      var p = IMAGE_PREFIXES[k];
      if (slice(v, 0, p.length) === p) from = p.length;
    }
    if (from < 0) return false;
    var pad = 0;
    for (var i = from; i < v.length; i++) {
      var c = code(v, i);
      if (c === 0x3d) { pad++; continue; }
      if (pad || !((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2b || c === 0x2f)) return false;
    }
    return pad <= 2;
  }

  /** A presentation value (parsed as CSS) may point only inside the document: a value that
   *  mentions url (any case) or holds a CSS escape must be exactly url(#id). */
  function safeValue(v) {
    for (var i = 0; i < v.length; i++) {
      var c = code(v, i);
      if (c === 0x5c) return isUrlRef(v);
      if ((c | 0x20) === 0x75 && i + 2 < v.length && (code(v, i + 1) | 0x20) === 0x72 && (code(v, i + 2) | 0x20) === 0x6c) {
        return isUrlRef(v);
      }
    }
    return true;
  }

  function writeAttributes(w, el, local) {
    var attrs = apply(elAttributes, el, []);
    var n = apply(mapLength, attrs, []);
    for (var i = 0; i < n; i++) {
      var a = apply(mapItem, attrs, [i]);
      if (!a) continue;
      var ns = apply(attrNamespace, a, []);
      var name = apply(attrLocalName, a, []);
      var value = apply(attrValue, a, []);
      if (ns === null && own(ATTRIBUTES, name)) {
        if (!safeValue(value)) continue;
        w.raw(' ' + name + '="');
      } else if (ns === XML_NS && name === 'space') {
        if (value !== 'preserve' && value !== 'default') continue;
        w.raw(' xml:space="');
      } else if ((ns === XLINK_NS || ns === null) && name === 'href') {
        if (!(isIdRef(value) || (local === 'image' && isDataImage(value)))) continue;
        w.raw(ns === null ? ' href="' : ' xlink:href="');
      } else {
        continue;
      }
      w.escaped(value, true);
      w.raw('"');
    }
  }

  function writeChildren(w, parent, inText, depth) {
    if (depth > MAX_NESTING) throw new Error('the SVG is nested more than ' + MAX_NESTING + ' levels deep');
    for (var node = apply(firstChild, parent, []); node; node = apply(nextSibling, node, [])) {
      var type = apply(nodeType, node, []);
      if (type === 3) {
        if (inText) w.escaped(apply(charData, node, []), false);
        continue;
      }
      if (type !== 1 || apply(elNamespace, node, []) !== SVG_NS) continue;
      var local = apply(elLocalName, node, []);
      if (!own(ELEMENTS, local)) continue;
      var name = ELEMENTS[local];
      w.raw('<' + name);
      writeAttributes(w, node, local);
      if (!apply(firstChild, node, [])) {
        w.raw('/>');
        continue;
      }
      w.raw('>');
      writeChildren(w, node, local === 'text', depth + 1);
      w.raw('</' + name + '>');
    }
  }

  // Kept: element and attribute names from the tables below, text inside <text>; references only
  // to "#id" (url(#id), href="#id") or to an embedded data:image/(png|jpeg|gif|webp);base64 image.
  // Dropped: every other element with its subtree, comments, processing instructions, CDATA,
  // event handlers, style. The output is measured (UTF-8 bytes) as it is built and refused once it
  // passes the limit. Every DOM and string operation goes through references saved at load.
  //   window.ChartshotSerializeSvg(root, width, height, maxBytes) -> string | { tooLarge: bytes }
  function serialize(root, width, height, maxBytes) {
    var w = new Writer(maxBytes);
    try {
      // the root's own attributes are the harness's, whatever caller code set on it
      w.raw('<svg xmlns="' + SVG_NS + '" xmlns:xlink="' + XLINK_NS + '" version="1.1" width="' + width +
        '" height="' + height + '" viewBox="0 0 ' + width + ' ' + height + '">');
      writeChildren(w, root, false, 0);
      w.raw('</svg>');
    } catch (e) {
      if (e instanceof TooLarge) return { tooLarge: w.bytes };
      throw e;
    }
    return w.out;
  }

  Object.defineProperty(window, 'ChartshotSerializeSvg', { value: serialize, writable: false, configurable: false });
})();
