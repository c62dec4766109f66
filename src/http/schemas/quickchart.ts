// JSON Schemas of QuickChart's routes (/chart, /chart/create, /chart/render/{id}, /qr): its
// parameter names and defaults. Values are checked by src/chart/quickchart.ts; unknown
// parameters (ref, ...) are ignored.
const text = (description: string, extra: object = {}) => ({ type: 'string', description, ...extra }) as const;
const scalar = (description: string, extra: object = {}) => ({ type: ['string', 'number'], description, ...extra }) as const;

const chartText =
  'The Chart.js config: JSON, or a JavaScript object literal (unquoted keys, single quotes, trailing commas; functions and other code only with an API key, evaluated inside the sandboxed page). URL-encoded, or base64 with encoding=base64.';

const quickChartProperties = (v: (d: string, e?: object) => object) => ({
  c: v(chartText),
  chart: v('Alias of c.'),
  w: v('Width in CSS pixels (default 500).', { default: 500 }),
  width: v('Alias of w.'),
  h: v('Height in CSS pixels (default 300).', { default: 300 }),
  height: v('Alias of h.'),
  devicePixelRatio: v('Output pixels per CSS pixel, 1 to 4 (default 2: a 500x300 chart is 1000x600 pixels). The plan caps apply to the output pixels.', { default: 2 }),
  bkg: v('Background colour (default transparent).'),
  backgroundColor: v('Alias of bkg.'),
  f: v('png (default), svg, pdf (enterprise plan), webp or jpg (jpeg): webp and jpg are drawn as the PNG and encoded by the renderer (a jpg has a white background unless bkg names one).', { default: 'png' }),
  format: v('Alias of f.'),
  quality: v('webp and jpg only: encoder quality 1-100 (default 80 for webp, 92 for jpg; 100 gives lossless webp).'),
  v: v('Chart.js version: 2 (default, e.g. 2.9.4), 3 (3.9.1) or 4.', { default: '2' }),
  version: v('Alias of v.'),
  encoding: v('url (default) or base64 (c is base64-encoded).', { default: 'url' }),
  cht: v('Google Image Charts form: not supported (400); send a Chart.js config in c.'),
  timezone: v('IANA time zone the chart is drawn in (chartshot\'s own, as on /v1/chart): Europe/Berlin. Default: the server\'s TIMEZONE (UTC), as QuickChart draws.'),
  locale: v('BCP 47 locale it is formatted in (chartshot\'s own): de-DE. Default: the server\'s LOCALE (en-US).'),
  key: v('API key (or api_key, or header X-Api-Key).'),
  api_key: v('Alias of key.'),
});

/** Query of GET /chart. */
export const quickChartQuerySchema = {
  $id: 'QuickChartQuery',
  type: 'object',
  properties: quickChartProperties(text),
} as const;

/** Body of POST /chart and POST /chart/create (c or chart may also be a config object). */
export const quickChartBodySchema = {
  $id: 'QuickChartRequest',
  type: 'object',
  properties: {
    ...quickChartProperties(scalar),
    c: { type: ['string', 'object'], description: chartText },
    chart: { type: ['string', 'object'], description: 'Alias of c.' },
  },
} as const;

/** 200 body of POST /chart/create. */
export const quickChartCreatedSchema = {
  type: 'object',
  required: ['success', 'url'],
  properties: {
    success: { type: 'boolean', const: true },
    url: { type: 'string', format: 'uri', description: '{PUBLIC_BASE_URL}/chart/render/<id>: served without credentials; permanent when made with a key, else while the open cache keeps the image.' },
  },
} as const;

/** Query of GET /chart/render/{id}: QuickChart's template overrides (dataN, labelN, ... for N = 1-50). */
export const templateQuerySchema = {
  $id: 'TemplateQuery',
  type: 'object',
  properties: {
    title: text('Chart title.'),
    labels: text('Comma-separated labels.'),
    data1: text('Comma-separated values of dataset 1 (data2, data3, ... likewise).'),
    label1: text('Label of dataset 1 (label2, ... likewise).'),
    backgroundColor1: text('Background colour of dataset 1 (backgroundColor2, ... likewise).'),
    borderColor1: text('Border colour of dataset 1 (borderColor2, ... likewise).'),
    width: text('Width in CSS pixels.'),
    height: text('Height in CSS pixels.'),
    backgroundColor: text('Background colour behind the chart.'),
    f: text('Format of an error image (the chart keeps its own format).'),
  },
} as const;

/** Query of GET /qr. */
export const qrQuerySchema = {
  $id: 'QrQuery',
  type: 'object',
  properties: {
    text: text('Content of the QR code, at most 2048 bytes.'),
    format: text('png (default) or svg.', { default: 'png' }),
    size: text('Width and height in pixels, 1-1000 (default 150).', { default: '150' }),
    margin: text('Quiet zone in modules, 0-50 (default 4).', { default: '4' }),
    ecLevel: text('Error correction level: L, M (default), Q or H.', { default: 'M' }),
    dark: text('Hex colour of the modules (default 000000).', { default: '000000' }),
    light: text('Hex colour of the background (default ffffff).', { default: 'ffffff' }),
    caption: text('Text below the code, at most 200 characters (drawn by a renderer page).'),
    captionFontFamily: text('Font family of the caption (default sans-serif).', { default: 'sans-serif' }),
    captionFontSize: text('Font size of the caption in pixels, 1-200 (default 10).', { default: '10' }),
    captionFontColor: text('Colour of the caption: a name or hex code (default black).', { default: 'black' }),
    centerImageUrl: text('An image over the middle of the code: a data:image URL, or an http(s) URL on a host in REMOTE_IMAGES_ALLOW (fetched by the server). The default ecLevel becomes H.'),
    centerImageSizeRatio: text("The center image's box as a fraction of the code's side, above 0 to 1 (default 0.3); the image keeps its aspect ratio.", { default: '0.3' }),
    centerImageWidth: text("Width of the center image's box in pixels (instead of the ratio)."),
    centerImageHeight: text("Height of the center image's box in pixels (instead of the ratio)."),
  },
} as const;
