// chartshot playground: a JSON editor with line numbers and validation, and a live preview
// rendered by the open endpoint of this same server. No external requests, no dependencies.
'use strict';

(function () {
  var MAX_C_BYTES = 6144;
  var DEBOUNCE_MS = 600;
  var DEFAULTS = { w: '500', h: '300', format: 'png', bkg: 'white' };

  var EXAMPLES = {
    bar: {
      type: 'bar',
      data: {
        labels: ['Q1', 'Q2', 'Q3', 'Q4'],
        datasets: [
          { label: 'Revenue', data: [12, 19, 7, 15], backgroundColor: '#3B82F6' },
          { label: 'Costs', data: [8, 11, 6, 9], backgroundColor: '#F59E0B' },
        ],
      },
      options: { plugins: { title: { display: true, text: 'Quarterly results' } } },
    },
    line: {
      type: 'line',
      data: {
        labels: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'],
        datasets: [{ label: 'Visitors', data: [120, 190, 170, 220, 260, 140, 110], borderColor: '#10B981', tension: 0.3 }],
      },
    },
    pie: {
      type: 'pie',
      data: { labels: ['Chrome', 'Firefox', 'Safari', 'Other'], datasets: [{ data: [64, 12, 18, 6] }] },
    },
    doughnut: {
      type: 'doughnut',
      data: { labels: ['Done', 'In progress', 'To do'], datasets: [{ data: [14, 5, 9] }] },
      options: { plugins: { legend: { position: 'right' } } },
    },
    radar: {
      type: 'radar',
      data: {
        labels: ['Speed', 'Power', 'Range', 'Comfort', 'Price'],
        datasets: [{ label: 'Model A', data: [7, 5, 8, 6, 4] }, { label: 'Model B', data: [5, 8, 5, 7, 6] }],
      },
    },
  };

  var $ = function (id) { return document.getElementById(id); };
  var editor = $('config');
  var gutter = $('gutter');
  var jsonStatus = $('json-status');
  var renderStatus = $('render-status');
  var preview = $('preview');
  var sizeInfo = $('size');
  var imageUrl = $('image-url');
  var imgTag = $('img-tag');
  var inputs = { w: $('w'), h: $('h'), format: $('fmt'), bkg: $('bkg') };

  var timer = null;
  var lastUrl = '';
  var objectUrl = null;
  var generation = 0;

  function pretty(value) {
    return JSON.stringify(value, null, 2);
  }

  function byteLength(s) {
    return new TextEncoder().encode(s).length;
  }

  // ---- the editor: line numbers, tab key, validation -----------------------------------
  function updateGutter() {
    var lines = editor.value.split('\n').length;
    var out = [];
    for (var i = 1; i <= lines; i++) out.push(i);
    gutter.textContent = out.join('\n');
    gutter.scrollTop = editor.scrollTop;
  }

  /** Line and column of a JSON.parse error, when the engine names a position. */
  function errorPlace(text, message) {
    var m = /position (\d+)/.exec(message);
    if (!m) {
      var lc = /line (\d+) column (\d+)/.exec(message);
      return lc ? 'line ' + lc[1] + ', column ' + lc[2] : '';
    }
    var pos = Number(m[1]);
    var before = text.slice(0, pos).split('\n');
    return 'line ' + before.length + ', column ' + (before[before.length - 1].length + 1);
  }

  /** The config as compact JSON, or null when the editor's text is not a JSON object. */
  function currentConfig() {
    var text = editor.value;
    var value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      var place = errorPlace(text, e.message);
      setStatus(jsonStatus, 'error', 'Invalid JSON' + (place ? ' at ' + place : '') + ': ' + e.message);
      return null;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      setStatus(jsonStatus, 'error', 'The config must be a JSON object, e.g. {"type": "bar", "data": {…}}');
      return null;
    }
    var compact = JSON.stringify(value);
    var bytes = byteLength(compact);
    sizeInfo.textContent = bytes + ' / ' + MAX_C_BYTES + ' bytes';
    sizeInfo.className = bytes > MAX_C_BYTES ? 'error' : 'muted';
    if (bytes > MAX_C_BYTES) {
      setStatus(jsonStatus, 'error', 'The config is ' + bytes + ' bytes; the open endpoint takes at most ' + MAX_C_BYTES + '.');
      return null;
    }
    setStatus(jsonStatus, 'ok', 'Valid JSON');
    return compact;
  }

  function setStatus(el, kind, text) {
    el.className = 'status ' + kind;
    el.textContent = text;
  }

  // ---- the image URL --------------------------------------------------------------------
  function query(compact) {
    var params = new URLSearchParams();
    params.set('c', compact);
    ['w', 'h', 'format', 'bkg'].forEach(function (k) {
      var v = String(inputs[k].value).trim();
      if (v !== '' && v !== DEFAULTS[k]) params.set(k, v);
    });
    return params.toString();
  }

  function schedule() {
    updateGutter();
    clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  }

  function refresh() {
    var compact = currentConfig();
    if (compact === null) return;
    var q = query(compact);
    var path = '/v1/open/chart?' + q;
    var absolute = location.origin + path;
    imageUrl.value = absolute;
    imgTag.value = '<img src="' + absolute.replace(/&/g, '&amp;').replace(/"/g, '&quot;') + '" alt="chart">';
    // the page's own address opens this same chart
    history.replaceState(null, '', '/playground?' + q);
    if (path === lastUrl) return;
    lastUrl = path;
    render(path);
  }

  function render(path) {
    var mine = ++generation;
    preview.classList.add('stale');
    setStatus(renderStatus, 'busy', 'Rendering…');
    var started = performance.now();
    fetch(path, { credentials: 'omit' })
      .then(function (res) {
        if (mine !== generation) return null;
        if (!res.ok) {
          return res.json().then(
            function (body) { throw new Error(res.status + ' ' + body.error + (body.detail ? ': ' + body.detail : '')); },
            function () { throw new Error('HTTP ' + res.status); },
          );
        }
        var tier = res.headers.get('x-cache-tier') || '?';
        return res.blob().then(function (blob) { return { blob: blob, tier: tier }; });
      })
      .then(function (got) {
        if (!got || mine !== generation) return;
        if (objectUrl) URL.revokeObjectURL(objectUrl);
        objectUrl = URL.createObjectURL(got.blob);
        preview.onload = function () {
          preview.classList.remove('stale');
          preview.dataset.rendered = String(mine);
        };
        preview.src = objectUrl;
        var ms = Math.round(performance.now() - started);
        setStatus(renderStatus, 'ok', 'Rendered: ' + got.blob.type + ', ' + got.blob.size + ' bytes, cache ' + got.tier + ', ' + ms + ' ms');
      })
      .catch(function (e) {
        if (mine !== generation) return;
        lastUrl = ''; // let the same URL be tried again
        setStatus(renderStatus, 'error', e.message);
      });
  }

  // ---- wiring ---------------------------------------------------------------------------
  editor.addEventListener('input', schedule);
  editor.addEventListener('scroll', function () { gutter.scrollTop = editor.scrollTop; });
  editor.addEventListener('keydown', function (e) {
    if (e.key !== 'Tab' || e.shiftKey || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    var s = editor.selectionStart;
    editor.setRangeText('  ', s, editor.selectionEnd, 'end');
    schedule();
  });
  Object.keys(inputs).forEach(function (k) {
    inputs[k].addEventListener('input', schedule);
    inputs[k].addEventListener('change', schedule);
  });
  $('format-json').addEventListener('click', function () {
    try {
      editor.value = pretty(JSON.parse(editor.value));
      schedule();
    } catch (e) {
      currentConfig();
    }
  });
  $('example').addEventListener('change', function (e) {
    var ex = EXAMPLES[e.target.value];
    if (!ex) return;
    editor.value = pretty(ex);
    schedule();
  });
  $('copy').addEventListener('click', function () {
    var button = this;
    var done = function () {
      button.textContent = 'Copied';
      setTimeout(function () { button.textContent = 'Copy'; }, 1200);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(imageUrl.value).then(done, function () { imageUrl.select(); });
    } else {
      imageUrl.select();
      try { if (document.execCommand('copy')) done(); } catch (err) { /* the URL stays selected */ }
    }
  });
  [imageUrl, imgTag].forEach(function (el) {
    el.addEventListener('focus', function () { el.select(); });
  });

  // ---- start: ?c= (and w, h, format, bkg) or ?id= (a stored config) preload the page -----
  var params = new URLSearchParams(location.search);
  var c = params.get('c');
  var id = params.get('id');
  if (id && !c) {
    // a large chart's edit link: the config was stored under the image's id
    editor.value = '';
    setStatus(renderStatus, 'busy', 'Loading the stored chart…');
    fetch('/playground/config/' + encodeURIComponent(id), { credentials: 'omit' })
      .then(function (res) {
        if (!res.ok) throw new Error('This chart is no longer stored (HTTP ' + res.status + ').');
        return res.json();
      })
      .then(function (state) {
        editor.value = pretty(state.c);
        if (state.w) inputs.w.value = String(state.w);
        if (state.h) inputs.h.value = String(state.h);
        if (state.format === 'svg') inputs.format.value = 'svg';
        if (state.bkg) inputs.bkg.value = state.bkg;
        updateGutter();
        refresh();
      })
      .catch(function (err) {
        editor.value = pretty(EXAMPLES.bar);
        updateGutter();
        setStatus(renderStatus, 'error', err.message);
      });
    return;
  }
  if (c) {
    try {
      editor.value = pretty(JSON.parse(c));
    } catch (e) {
      editor.value = c; // shown as is, with the JSON error under it
    }
  } else {
    editor.value = pretty(EXAMPLES.bar);
  }
  if (params.get('w')) inputs.w.value = params.get('w');
  if (params.get('h')) inputs.h.value = params.get('h');
  if (params.get('format') === 'svg') inputs.format.value = 'svg';
  if (params.get('bkg')) inputs.bkg.value = params.get('bkg');
  updateGutter();
  refresh();
})();
