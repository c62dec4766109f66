// Images a request hands in as data URLs, drawn behind the chart in the order given: QuickChart's
// backgroundImageUrl (fetched by the service from REMOTE_IMAGES_ALLOW hosts, or sent as a data
// URL) over the whole canvas, and /qr's code and center image in their boxes. Decoded before the
// render. The page itself never fetches anything: only data:image URLs are accepted here.
(function () {
  'use strict';
  var ImageCtor = window.Image;
  var decode = HTMLImageElement.prototype.decode;
  var test = RegExp.prototype.test;
  var DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/;
  // backstops: the service bounds images to a few MB and names at most a few per request
  var MAX_CHARS = 16 * 1024 * 1024;
  var MAX_IMAGES = 4;
  var MAX_COORD = 16384;

  function num(v, min) {
    return typeof v === 'number' && v >= min && v <= MAX_COORD;
  }

  /** { src, box?: { x, y, width, height } (CSS px; absent: the whole canvas), fit?: 'fill' | 'contain' } */
  function checkSpec(s) {
    if (s === null || typeof s !== 'object') throw new Error('an image must be { src, box?, fit? }');
    if (typeof s.src !== 'string' || s.src.length > MAX_CHARS || !Reflect.apply(test, DATA_IMAGE, [s.src])) {
      throw new Error('an image must be a base64 data:image URL (png, jpeg, gif or webp)');
    }
    var box = null;
    if (s.box !== undefined && s.box !== null) {
      var b = s.box;
      if (typeof b !== 'object' || !num(b.x, -MAX_COORD) || !num(b.y, -MAX_COORD) || !num(b.width, 0) || !num(b.height, 0)) throw new Error('an image box must be numbers in range');
      box = { x: b.x, y: b.y, width: b.width, height: b.height };
    }
    if (s.fit !== undefined && s.fit !== 'fill' && s.fit !== 'contain') throw new Error('an image fit must be fill or contain');
    return { src: s.src, box: box, fit: s.fit === 'contain' ? 'contain' : 'fill' };
  }

  /** A promise of [{ img, box, fit }], or a rejection naming what is wrong. */
  function load(specs) {
    try {
      if (!Array.isArray(specs) || specs.length > MAX_IMAGES) throw new Error('at most ' + MAX_IMAGES + ' images');
      var checked = specs.map(checkSpec);
    } catch (e) {
      return Promise.reject(e);
    }
    return Promise.all(checked.map(function (s) {
      var img = new ImageCtor();
      img.src = s.src;
      return Reflect.apply(decode, img, []).then(
        function () { return { img: img, box: s.box, fit: s.fit }; },
        function () { throw new Error('an image could not be decoded'); },
      );
    }));
  }

  function draw(ctx, l, width, height) {
    var b = l.box || { x: 0, y: 0, width: width, height: height };
    var w = b.width;
    var h = b.height;
    if (l.fit === 'contain' && l.img.naturalWidth > 0 && l.img.naturalHeight > 0) {
      var k = Math.min(b.width / l.img.naturalWidth, b.height / l.img.naturalHeight);
      w = l.img.naturalWidth * k;
      h = l.img.naturalHeight * k;
    }
    ctx.drawImage(l.img, b.x + (b.width - w) / 2, b.y + (b.height - h) / 2, w, h);
  }

  /** Drawn behind the chart, after the background colour, in the order given. */
  function plugin(loaded) {
    return {
      id: 'chartshotImages',
      beforeDraw: function (chart) {
        var ctx = chart.ctx;
        ctx.save();
        for (var i = 0; i < loaded.length; i++) draw(ctx, loaded[i], chart.width, chart.height);
        ctx.restore();
      },
    };
  }

  Object.defineProperty(window, 'ChartshotImages', { value: Object.freeze({ load: load, plugin: plugin }), configurable: true });
})();
