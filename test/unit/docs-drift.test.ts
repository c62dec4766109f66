// Documentation that cannot drift from the code: every relative link of the README and docs/
// resolves (file and #anchor), every environment variable the server reads is in
// docs/configuration.md and every one listed there is read, and every route of the route table
// is a row of docs/api.md's endpoint table (and every row a route), and its error table is
// src/errorCodes.ts's, and the user docs carry no work history (dated runs, sessions). The quick
// start's commands are run against a server in test/integration/quickstart.test.ts.
import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { anchors, links, markdownFiles, section, withoutFences } from '../helpers/markdown.js';
import { testConfig } from '../helpers/server.js';
import { routeTable } from '../../src/app.js';
import { isAsset } from '../../src/http/route.js';
import { ERROR_STATUS } from '../../src/errorCodes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The Markdown a reader of the repository meets: the README, the manual, the bench's guide and every other .md outside tests and dependencies. */
const DOCS = markdownFiles(ROOT)
  .map((f) => relative(ROOT, f))
  .filter((f) => !/^(node_modules|test|dist|data)\//.test(f));

describe('docs that cannot drift', () => {
  describe('links', () => {
    it('finds the README and the manual', () => {
      expect(DOCS).to.include.members(['README.md', 'docs/README.md', 'docs/api.md', 'docs/configuration.md', 'bench/README.md']);
    });

    it('every relative link resolves to a file, and every #anchor to a heading of it', () => {
      const broken: string[] = [];
      for (const file of DOCS) {
        for (const { target, line } of links(read(file))) {
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
          const [path, anchor] = target.split('#', 2) as [string, string | undefined];
          const to = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(path));
          if (!to.startsWith(ROOT) || !existsSync(to)) {
            broken.push(`${file}:${line}: ${target} (no such file)`);
            continue;
          }
          if (anchor === undefined || anchor === '') continue;
          if (statSync(to).isDirectory() || !to.endsWith('.md')) {
            broken.push(`${file}:${line}: ${target} (an anchor into something that is not Markdown)`);
            continue;
          }
          if (!anchors(readFileSync(to, 'utf8')).has(anchor)) broken.push(`${file}:${line}: ${target} (no heading makes #${anchor})`);
        }
      }
      expect(broken, 'broken links').to.deep.equal([]);
    });
  });

  describe('user documentation says what holds, not how it came to be', () => {
    it('the README, the manual (decision records aside) and bench/README name no dated run, session or worker', () => {
      const story = /\bsession \d+\b|\b20\d\d-\d\d-\d\d\b|\bthe lead\b|\bhelpers? (?:running|ran)\b|\bissue \d+\b/i;
      const found = DOCS.filter((f) => f === 'README.md' || f === 'bench/README.md' || /^docs\/[^/]+\.md$/.test(f)).flatMap((f) =>
        read(f)
          .split('\n')
          .map((line, i) => (story.test(line) ? `${f}:${i + 1}: ${line.trim().slice(0, 120)}` : null))
          .filter((x): x is string => x !== null),
      );
      expect(found, 'work history in user docs (keep results, with what was measured)').to.deep.equal([]);
    });
  });

  describe('bench/README.md', () => {
    it('names every file and folder of bench/ and every npm script that runs one', () => {
      const guide = read('bench/README.md');
      const entries = readdirSync(join(ROOT, 'bench'), { withFileTypes: true }).flatMap((d) =>
        d.isDirectory()
          ? d.name === 'honest'
            ? readdirSync(join(ROOT, 'bench/honest')).filter((f) => /\.(ts|mjs)$/.test(f)).map((f) => `honest/${f}`)
            : [`${d.name}/`]
          : /\.(ts|mjs)$/.test(d.name)
            ? [d.name]
            : [],
      );
      const named = (entry: string) => guide.includes(`\`${entry}`) || guide.includes(`bench/${entry}`) || guide.includes(`\`${entry.replace(/^honest\//, '')}\``);
      expect(entries.filter((e) => !named(e)), 'in bench/ but not in bench/README.md').to.deep.equal([]);
      const scripts = Object.entries((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts)
        .filter(([, cmd]) => cmd.includes('bench/'))
        .map(([name]) => `npm run ${name}`);
      expect(scripts.filter((s) => !guide.includes(`\`${s}`)), 'npm scripts of bench/ not in bench/README.md').to.deep.equal([]);
    });
  });

  describe('configuration', () => {
    /** Every variable name src/ reads from the environment (config.ts is the reader; others only pass the environment on). */
    function variablesRead(): Set<string> {
      const names = new Set<string>();
      const config = read('src/config.ts');
      // env.NAME, env['NAME'], and the names handed to the readers: int(env, 'NAME', ...), url(env, 'NAME', ...), lists of names
      for (const m of config.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]|['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})['"]/g)) {
        names.add((m[1] ?? m[2] ?? m[3])!);
      }
      for (const file of sourceFiles(join(ROOT, 'src'))) {
        for (const m of readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
      }
      // not settings: the search path Chromium is started with
      names.delete('PATH');
      return names;
    }

    /** The variables named in the first cell of docs/configuration.md's table rows. */
    function variablesListed(): Set<string> {
      const names = new Set<string>();
      for (const row of withoutFences(read('docs/configuration.md')).split('\n')) {
        const cell = /^\|([^|]*)\|/.exec(row)?.[1];
        if (!cell) continue;
        // short names too (CI)
        for (const m of cell.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[A-Z]{2,}\b/g)) names.add(m[0]);
      }
      return names;
    }

    it('reads variables, and the guide lists variables (the parsers see both)', () => {
      expect(variablesRead()).to.include('RENDER_TIMEOUT_MS').and.to.include('OTEL_EXPORTER_OTLP_HEADERS').and.to.include('PORT');
      expect(variablesListed()).to.include('RENDER_TIMEOUT_MS').and.to.include('OTEL_TRACES_EXPORTER').and.to.include('PORT');
    });

    it('every variable the server reads is in docs/configuration.md', () => {
      const listed = variablesListed();
      expect([...variablesRead()].filter((n) => !listed.has(n)), 'read by src/ but not in docs/configuration.md').to.deep.equal([]);
    });

    it('every variable docs/configuration.md lists is read', () => {
      const read = variablesRead();
      expect([...variablesListed()].filter((n) => !read.has(n)), 'in docs/configuration.md but read nowhere in src/').to.deep.equal([]);
    });
  });

  describe('routes', () => {
    /**
     * The route table as the app registers it. Building it calls no service: each dependency is a
     * stand-in that only records nothing (a route's handler would use the real ones).
     */
    function routes(): string[] {
      const inert: ProxyHandler<object> = { get: (_t, p) => (p === 'then' ? undefined : new Proxy(() => undefined, inert)), apply: () => new Proxy(() => undefined, inert) };
      const config = testConfig({ dataDir: join(ROOT, 'no-such-data-dir') });
      const deps = new Proxy({ config } as object, { get: (t, p) => (p in t ? (t as Record<string | symbol, unknown>)[p] : new Proxy(() => undefined, inert)) });
      return routeTable(deps as Parameters<typeof routeTable>[0])
        .filter((e) => !isAsset(e) && !e.page)
        .map((e) => `${(e as { method: string }).method} ${e.path.replace(/:(\w+)/g, '{$1}')}`);
    }

    /** The first cells of docs/api.md's "Endpoints" table, one route a row. */
    function documented(): string[] {
      const table = section(read('docs/api.md'), 'Endpoints');
      expect(table, 'docs/api.md has an "Endpoints" section').to.be.a('string');
      return table!
        .split('\n')
        .map((row) => /^\| `([A-Z]+ \/[^`]*)` \|/.exec(row)?.[1])
        .filter((r): r is string => r !== undefined);
    }

    it('the route table has its routes (a stand-in broke nothing)', () => {
      expect(routes()).to.include.members(['POST /v1/chart', 'GET /v1/chart/{id}', 'GET /chart/render/{id}', 'GET /billing/invoices/{id}/pdf']);
    });

    it('every route is a row of the API guide\'s endpoint table', () => {
      const rows = documented();
      expect(routes().filter((r) => !rows.includes(r)), 'routes missing from docs/api.md "Endpoints"').to.deep.equal([]);
    });

    it('every row of that table is a route', () => {
      const table = routes();
      expect(documented().filter((r) => !table.includes(r)), 'rows of docs/api.md "Endpoints" that no route serves').to.deep.equal([]);
    });

    it('the API guide\'s error table is src/errorCodes.ts: every code with its status, and no other', () => {
      const table = section(read('docs/api.md'), 'Error codes');
      expect(table, 'docs/api.md has an "Error codes" section').to.be.a('string');
      const rows = Object.fromEntries(
        table!
          .split('\n')
          .map((row) => /^\| `([a-z_]+)` \| (\d{3}) \|/.exec(row))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => [m[1]!, Number(m[2])]),
      );
      expect(rows).to.deep.equal({ ...ERROR_STATUS });
    });
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : /\.(ts|js|mjs)$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}
