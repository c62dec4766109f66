// @ts-check
/** The config text of a deflated request (base64 of raw deflate), or null when it is not one. */
var atobSaved = window.atob;
function decodeBase64(b64) {
  if (typeof fromBase64 === 'function') return apply(fromBase64, Uint8Array, [b64]);
  // Chromium before 140 has no Uint8Array.fromBase64
  var bin = apply(atobSaved, window, [b64]);
  var out = new Uint8Array(bin.length);
  for (var i = 0; i < bin.length; i++) out[i] = charAt(bin, i);
  return out;
}

function inflate(b64) {
  var bytes = decodeBase64(b64);
  var stream = apply(pipeThrough, apply(blobStream, new BlobCtor([bytes]), []), [new InflateCtor('deflate-raw')]);
  return apply(responseText, new ResponseCtor(stream), []);
}

/**
 * @param {PageRequestIn} req (its configDeflated a string)
 * @param {number} t0
 * @returns {Promise<import('../protocol').PageAnswer>}
 */
async function renderDeflated(req, t0) {
  var text = null;
  try {
    text = await inflate(req.configDeflated);
  } catch (e) {
    text = null;
  }
  return renderText(req, text, t0);
}

/**
 * A request with images (data URLs): decoded first, then drawn with the chart.
 * @param {PageRequestIn} req
 * @param {number} t0
 * @returns {Promise<import('../protocol').PageAnswer>}
 */
async function renderWithImages(req, t0) {
  /** @type {{ list?: any[], error?: unknown }} */
  var images = {};
  try {
    images.list = await Images.load(req.images);
  } catch (e) {
    images.error = e;
  }
  if (typeof req.configDeflated !== 'string') return renderText(req, typeof req.configJson === 'string' ? req.configJson : undefined, t0, images);
  var text = null;
  try {
    text = await inflate(req.configDeflated);
  } catch (e) {
    text = null;
  }
  return renderText(req, text, t0, images);
}

/**
 * A result, or (for a deflated config or images) a promise of one. (api.js types it as ChartshotApi's
 * render: every PageRequest is a PageRequestIn.)
 * @param {PageRequestIn} req
 * @returns {import('../protocol').PageAnswer | Promise<import('../protocol').PageAnswer>}
 */
function render(req) {
  var t0 = now();
  // nothing runs in a zone or locale other than the request's
  var refused = isObject(req) ? zoneRefusal(req) : null;
  if (refused !== null) return refused;
  if (allocGuard) allocGuard.reset(isObject(req) ? req.memoryBudgetMb : undefined);
  if (taskGuard) taskGuard.begin();
  if (isObject(req) && req.images !== undefined && Images) return tasksEnded(renderWithImages(req, t0));
  if (isObject(req) && typeof req.configDeflated === 'string') return tasksEnded(renderDeflated(req, t0));
  return endTasks(renderText(req, isObject(req) && typeof req.configJson === 'string' ? req.configJson : undefined, t0));
}

/**
 * The render's answer once whatever it scheduled is cancelled (task-guard.js). Caller code that
 * scheduled anything (and was not proven pure, or it could not have) resets the page anyway;
 * the harness's own scripts schedule nothing in a render, so anything cancelled resets it too.
 * @param {import('../protocol').PageAnswer} answer
 * @returns {import('../protocol').PageAnswer}
 */
function endTasks(answer) {
  if (taskGuard && taskGuard.end() > 0) answer.needsReset = true;
  return answer;
}

/** @param {Promise<import('../protocol').PageAnswer>} p */
async function tasksEnded(p) {
  try {
    return endTasks(await p);
  } finally {
    if (taskGuard && taskGuard.active()) taskGuard.end();
  }
}
