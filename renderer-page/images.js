// Images a request hands in as data URLs (QuickChart's backgroundImageUrl, fetched by the service
// from REMOTE_IMAGES_ALLOW hosts or sent as a data URL): decoded before the render, drawn by a
// plugin. The page itself never fetches anything: only data:image URLs are accepted here.
(function () {
  'use strict';
  var ImageCtor = window.Image;
  var decode = HTMLImageElement.prototype.decode;
  var test = RegExp.prototype.test;
  var DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/;
  // the largest data URL accepted: the service bounds images to a few MB; this is a backstop
  var MAX_CHARS = 16 * 1024 * 1024;

  /** A promise of the decoded image, or a rejection naming what is wrong. */
  function load(url) {
    if (typeof url !== 'string' || url.length > MAX_CHARS || !Reflect.apply(test, DATA_IMAGE, [url])) {
      return Promise.reject(new Error('the background image must be a base64 data:image URL (png, jpeg, gif or webp)'));
    }
    var img = new ImageCtor();
    img.src = url;
    return Reflect.apply(decode, img, []).then(
      function () { return img; },
      function () { throw new Error('the background image could not be decoded'); },
    );
  }

  /** Drawn over the whole canvas, behind the chart, after the background colour. */
  function backgroundPlugin(img) {
    return {
      id: 'chartshotBackgroundImage',
      beforeDraw: function (chart) {
        var ctx = chart.ctx;
        ctx.save();
        ctx.drawImage(img, 0, 0, chart.width, chart.height);
        ctx.restore();
      },
    };
  }

  Object.defineProperty(window, 'ChartshotImages', { value: Object.freeze({ load: load, backgroundPlugin: backgroundPlugin }), configurable: true });
})();
