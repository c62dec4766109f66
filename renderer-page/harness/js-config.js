// @ts-check

/**
 * A config given as JavaScript (an object literal, functions and all, as QuickChart clients
 * send it): evaluated here, with QuickChart's helpers in scope. Caller code, as callbacks are:
 * same lockdown, same render deadline, and the page is reset afterwards.
 */
function evaluateConfig(source, width, height, st) {
  if (!st.allowFunctions) throw new Error('a JavaScript config needs function support');
  if (source.length > MAX_JS_CONFIG) throw new Error('the JavaScript config is over ' + MAX_JS_CONFIG + ' characters');
  st.jsConfig = true;
  st.ranFunctions = true;
  st.impure = true;
  var h = QuickChart.helpers(width, height);
  var make;
  try {
    make = new Function('getGradientFill', 'getGradientFillHelper', 'pattern', 'Chart', 'return (' + source + '\n);');
  } catch (e) {
    throw new Error('the JavaScript config does not parse: ' + shortMessage(e));
  }
  return make(h.getGradientFill, h.getGradientFillHelper, h.pattern, Chart);
}
