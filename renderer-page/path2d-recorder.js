// Makes window.Path2D a native Path2D subclass that also records its commands, so the SVG context
// can replay the paths Chart.js strokes. Loaded before Chart.js; see docs/decisions/0009-svg-output.md.
(function () {
  'use strict';
  var Native = window.Path2D;
  if (typeof Native !== 'function' || Native.__chartshotRecording) return;

  // Opcodes of the flat command list: [op, args..., op, args...]
  var MOVE = 0, LINE = 1, QUAD = 2, CUBIC = 3, ARC = 4, ARCTO = 5, ELLIPSE = 6, RECT = 7,
    CLOSE = 8, ROUNDRECT = 9, ADDPATH = 10, SVGDATA = 11;

  class RecordingPath2D extends Native {
    constructor(init) {
      super(init);
      this.__ops = [];
      if (init instanceof RecordingPath2D) {
        this.__ops.push(ADDPATH, init, null);
      } else if (typeof init === 'string') {
        this.__ops.push(SVGDATA, init);
      }
    }
    moveTo(x, y) { super.moveTo(x, y); this.__ops.push(MOVE, x, y); }
    lineTo(x, y) { super.lineTo(x, y); this.__ops.push(LINE, x, y); }
    quadraticCurveTo(a, b, x, y) { super.quadraticCurveTo(a, b, x, y); this.__ops.push(QUAD, a, b, x, y); }
    bezierCurveTo(a, b, c, d, x, y) { super.bezierCurveTo(a, b, c, d, x, y); this.__ops.push(CUBIC, a, b, c, d, x, y); }
    arc(x, y, r, s, e, ccw) { super.arc(x, y, r, s, e, ccw); this.__ops.push(ARC, x, y, r, s, e, !!ccw); }
    arcTo(x1, y1, x2, y2, r) { super.arcTo(x1, y1, x2, y2, r); this.__ops.push(ARCTO, x1, y1, x2, y2, r); }
    ellipse(x, y, rx, ry, rot, s, e, ccw) {
      super.ellipse(x, y, rx, ry, rot, s, e, ccw);
      this.__ops.push(ELLIPSE, x, y, rx, ry, rot, s, e, !!ccw);
    }
    rect(x, y, w, h) { super.rect(x, y, w, h); this.__ops.push(RECT, x, y, w, h); }
    roundRect(x, y, w, h, radii) { super.roundRect(x, y, w, h, radii); this.__ops.push(ROUNDRECT, x, y, w, h, radii); }
    closePath() { super.closePath(); this.__ops.push(CLOSE); }
    addPath(path, m) {
      super.addPath(path, m);
      if (path instanceof RecordingPath2D) this.__ops.push(ADDPATH, path, m ? DOMMatrix.fromMatrix(m) : null);
    }
  }

  // Replays the recorded commands onto any object with the CanvasPath methods (the SVG context).
  function replay(path, target, depth) {
    var o = path.__ops, i = 0, n = o.length;
    if ((depth | 0) > 16) return;
    while (i < n) {
      switch (o[i]) {
        case MOVE: target.moveTo(o[i + 1], o[i + 2]); i += 3; break;
        case LINE: target.lineTo(o[i + 1], o[i + 2]); i += 3; break;
        case QUAD: target.quadraticCurveTo(o[i + 1], o[i + 2], o[i + 3], o[i + 4]); i += 5; break;
        case CUBIC: target.bezierCurveTo(o[i + 1], o[i + 2], o[i + 3], o[i + 4], o[i + 5], o[i + 6]); i += 7; break;
        case ARC: target.arc(o[i + 1], o[i + 2], o[i + 3], o[i + 4], o[i + 5], o[i + 6]); i += 7; break;
        case ARCTO: target.arcTo(o[i + 1], o[i + 2], o[i + 3], o[i + 4], o[i + 5]); i += 6; break;
        case ELLIPSE: target.ellipse(o[i + 1], o[i + 2], o[i + 3], o[i + 4], o[i + 5], o[i + 6], o[i + 7], o[i + 8]); i += 9; break;
        case RECT: target.rect(o[i + 1], o[i + 2], o[i + 3], o[i + 4]); i += 5; break;
        case ROUNDRECT: target.roundRect(o[i + 1], o[i + 2], o[i + 3], o[i + 4], o[i + 5]); i += 6; break;
        case CLOSE: target.closePath(); i += 1; break;
        case ADDPATH: target.__addRecordedPath(o[i + 1], o[i + 2], (depth | 0) + 1); i += 3; break;
        case SVGDATA: target.__addSvgPathData(o[i + 1]); i += 2; break;
        default: return;
      }
    }
  }

  Object.defineProperty(RecordingPath2D, '__chartshotRecording', { value: true });
  Object.defineProperty(RecordingPath2D, 'name', { value: 'Path2D' });
  window.Path2D = RecordingPath2D;
  window.__chartshotPath2D = Object.freeze({ Native: Native, Recording: RecordingPath2D, replay: replay });
})();
