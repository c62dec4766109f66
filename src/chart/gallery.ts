// What /gallery shows (pure): one example per chart type each Chart.js version's page draws,
// built-in types on Chart.js 2, 3 and 4, every chart-type plugin on Chart.js 4, and QuickChart's
// hosted features on the version its docs use for each (quickchartExamples.ts).
import { BUILT_IN_TYPES } from './chartTypes.js';
import { PLUGIN_EXAMPLES } from './pluginExamples.js';
import { QUICKCHART_EXAMPLES } from './quickchartExamples.js';

export type GalleryVersion = 2 | 3 | 4;

export interface GalleryExample {
  /** URL-safe: the image is /gallery/{id}.png. */
  readonly id: string;
  readonly chartjs: GalleryVersion;
  readonly title: string;
  readonly config: Record<string, unknown>;
}

export const GALLERY_WIDTH = 360;
export const GALLERY_HEIGHT = 220;

const LABELS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'];
const COLORS = ['#4dc9f6', '#f67019', '#f53794', '#537bc4', '#acc236'];

/** A config every version draws alike: no scale options (their syntax differs between 2 and 3+). */
function builtIn(type: string): Record<string, unknown> {
  const points = type === 'scatter' || type === 'bubble';
  const series = (k: number) =>
    points
      ? [3, 7, 4, 9, 6].map((y, i) => ({ x: i * 2 + k, y: y + k, ...(type === 'bubble' ? { r: 4 + ((i * 3) % 9) } : {}) }))
      : [12, 19, 7, 15, 10].map((v, i) => v + ((i + k) % 3) * 3);
  const round = type === 'pie' || type === 'doughnut' || type === 'polarArea';
  return {
    type,
    data: {
      ...(points ? {} : { labels: LABELS }),
      datasets: (round ? [0] : [0, 1]).map((k) => ({
        label: `Series ${k + 1}`,
        data: series(k),
        backgroundColor: round ? COLORS : COLORS[k * 3],
        borderColor: round ? '#fff' : COLORS[k * 3],
        ...(type === 'radar' || type === 'line' ? { fill: false } : {}),
      })),
    },
  };
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

export const GALLERY: readonly GalleryExample[] = [
  ...([4, 3, 2] as const).flatMap((v) => BUILT_IN_TYPES.map((t) => ({ id: `v${v}-${slug(t)}`, chartjs: v, title: t, config: builtIn(t) }))),
  ...PLUGIN_EXAMPLES.map((e) => ({ id: `v4-${slug(e.type)}`, chartjs: 4 as const, title: `${e.type} (${e.bundle.replace(/\.js$/, '')})`, config: e.config })),
  {
    id: 'v4-graph',
    chartjs: 4,
    title: 'graph (chartjs-chart-graph): nodes where the config puts them',
    config: {
      type: 'graph',
      data: {
        labels: ['a', 'b', 'c', 'd'],
        datasets: [{ label: 'graph', data: [{ x: 0, y: 0 }, { x: 2, y: 1 }, { x: 1, y: 3 }, { x: 3, y: 2 }], edges: [{ source: 0, target: 1 }, { source: 0, target: 2 }, { source: 1, target: 3 }], pointRadius: 6, pointBackgroundColor: '#f67019' }],
      },
      options: { plugins: { legend: { display: false } } },
    },
  },
  ...QUICKCHART_EXAMPLES,
];

const BY_ID: ReadonlyMap<string, GalleryExample> = new Map(GALLERY.map((e) => [e.id, e]));

export function galleryExample(id: string): GalleryExample | undefined {
  return BY_ID.get(id);
}
