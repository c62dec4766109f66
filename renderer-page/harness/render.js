// @ts-check

/** Time spent on the page-state checks (restore before, digest after) while floor() measures (null
 *  otherwise, so an ordinary render leaves nothing changed behind): floor() reports its share. */
/** @type {number | null} */
var checkMs = null;

/**
 * One render, request to answer. Never throws: whatever caller code did, the answer is built
 * with saved references on an object without a prototype.
 * @param {PageRequestIn} req
 * @param {string | null | undefined} text the config's JSON text; null: it could not be inflated
 * @param {number} t0
 * @param {{ list?: any[], error?: unknown }} [images] the request's images, decoded (images.js)
 * @returns {import('../protocol').PageAnswer}
 */
function renderText(req, text, t0, images) {
  var st = { allowFunctions: false, jsConfig: false, ranFunctions: false, impure: false, stateLost: false, maxImageBytes: DEFAULT_MAX_IMAGE_BYTES, imageBytes: 0 };
  var handle = { chart: null, key: null };
  /** @type {PageAnswerDraft} */
  var result;
  try {
    if (!initialised) throw new Error('the page has no limits (chartshot.init)');
    if (!isObject(req)) throw new Error('request must be an object');
    // every bundle's module-level state as the loaded page had it, whatever the render before did
    var t1 = now();
    var restored = !!ModuleState && ModuleState.restore();
    if (checkMs !== null) checkMs += now() - t1;
    if (!restored) {
      st.impure = true;
      st.stateLost = true;
      throw new Error('the page state could not be restored');
    }
    Budgets.begin(req.budget);
    st.allowFunctions = req.allowFunctions === true;
    var limit = req.maxImageBytes;
    if (limit !== undefined && limit !== null) {
      if (typeof limit !== 'number' || !(limit >= 1)) throw new Error('maxImageBytes must be a positive number');
      st.maxImageBytes = limit;
    }
    var width = checkSide(req.width, 'width');
    var height = checkSide(req.height, 'height');
    var format = req.format === undefined ? 'png' : req.format;
    if (format !== 'png' && format !== 'svg') throw new Error('format must be png or svg');
    if (req.raster !== undefined) st.raster = checkRaster(req.raster);
    if (req.chartjs !== undefined && req.chartjs !== null && req.chartjs !== MAJOR) throw new Error('this page draws Chart.js ' + MAJOR);
    var ratio = req.devicePixelRatio === undefined || req.devicePixelRatio === null ? 1 : req.devicePixelRatio;
    if (typeof ratio !== 'number' || !(ratio >= 1 && ratio <= MAX_RATIO)) throw new Error('devicePixelRatio must be a number 1-' + MAX_RATIO);
    // an SVG has no pixels to multiply: it keeps width x height
    if (format === 'svg') ratio = 1;
    if (Math.floor(width * ratio) > MAX_SIDE || Math.floor(height * ratio) > MAX_SIDE) {
      throw new Error('the image would be over ' + MAX_SIDE + ' pixels a side');
    }
    var cfg;
    if (typeof req.configJs === 'string') {
      cfg = cleanConfig(evaluateConfig(req.configJs, width, height, st), 0, st, 'root');
    } else {
      // The Node side sends the config as JSON text (faster through CDP than an object).
      if (text === null) throw new Error('the config could not be inflated');
      var raw = typeof text === 'string' ? apply(jsonParse, JSON, [text]) : req.config;
      cfg = cleanConfig(raw, 0, st, 'root');
      if (st.badFunction !== undefined) {
        var at = findString(cfg, st.badFunction, 0);
        throw new Error('the function string at ' + (at || '(config)') + ' does not parse: ' + st.badFunctionMessage);
      }
    }
    if (!isObject(cfg)) throw new Error('config must be an object');
    if (req.textPatches !== undefined) applyPatches(cfg, req.textPatches);
    if (images && images.error) throw images.error;
    prepare(cfg, req, ratio, images, st);
    var data = format === 'svg' ? renderSvg(cfg, width, height, handle, st) : renderPng(cfg, width, height, ratio, handle, st);
    // caller code may have caught the budget's error and drawn on: the render is refused all the same
    if (Budgets.hit() !== null) throw new Error(Budgets.hit());
    result = outcome(true);
    result.data = data;
    result.ms = 0;
    if (req.parts === true && handle.chart) result.parts = partBoxes(handle.chart, ratio, width, height);
  } catch (e) {
    result = outcome(false);
    result.error = shortMessage(e);
    if (st.imageBytes > 0) result.imageBytes = st.imageBytes;
    // set by budgets.js itself, never read from the error: caller code cannot claim a budget
    var hit = Budgets.hit();
    if (hit !== null) {
      result.error = hit;
      result.budget = true;
    }
  } finally {
    // destroy() runs caller plugins' hooks: nothing they throw may escape (an exception's
    // description would cross CDP whole)
    try {
      dispose(handle.chart, handle.key);
    } catch (ignored) {
      /* the page is reset after any render that ran caller code */
    }
    Budgets.end();
  }
  // an allocation was refused (even one caller code caught): the render fails with the budget
  if (allocGuard && allocGuard.tripped()) {
    result = outcome(false);
    result.error = allocGuard.message();
    result.memoryBudget = true;
  }
  result.ranFunctions = st.ranFunctions === true;
  // false only when no function ran or every one was proven pure (pure.js), and the page's shared
  // state is the loaded page's (page-state.js): no reset needed. Otherwise the page says why.
  var t2 = now();
  var changed = whatChanged();
  if (checkMs !== null) checkMs += now() - t2;
  result.needsReset = st.impure === true || changed !== null;
  if (result.needsReset) result.resetReason = st.impure === true && !st.stateLost ? 'caller_code' : 'page_state';
  if (result.ok) result.ms = now() - t0;
  return /** @type {import('../protocol').PageAnswer} */ (result);
}

