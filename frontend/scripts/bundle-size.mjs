#!/usr/bin/env node
// Reports the gzipped size of each entry of the production build (its own chunk, every chunk
// it imports statically, and their CSS) and checks the participant entry:
//   * under the budget (150 kB gzipped), and
//   * no chart code (chart.js, react-chartjs-2, the results explorer) in its chunk graph.
// Reads dist/.vite/manifest.json and dist/.vite/chunk-modules.json (written by vite.config.ts);
// writes var/bench/frontend.json at the repository root. Exit 1 when a check fails.
//   node scripts/bundle-size.mjs [--dist DIR] [--out FILE]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? resolve(args[i + 1]) : fallback;
};
const dist = option('--dist', resolve(here, '..', 'dist'));
const out = option('--out', resolve(here, '..', '..', 'var', 'bench', 'frontend.json'));

export const PARTICIPANT_BUDGET_BYTES = 150 * 1000;
export const CHART_MODULE = /(^|\/)node_modules\/(chart\.js|react-chartjs-2|@kurkle\/color)\/|(^|\/)src\/results\//;

function readJSON(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    console.error(`error: cannot read ${path} (${error.message}); run \`npm run build\` first`);
    process.exit(2);
  }
}

const manifest = readJSON(join(dist, '.vite', 'manifest.json'));
const modules = readJSON(join(dist, '.vite', 'chunk-modules.json'));
const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const raw = (file) => readFileSync(join(dist, file)).length;

/** The entry's chunk and everything it imports statically (what the browser must load). */
function graph(key) {
  const seen = new Set();
  const visit = (k) => {
    if (seen.has(k)) return;
    seen.add(k);
    for (const dep of manifest[k]?.imports ?? []) visit(dep);
  };
  visit(key);
  return [...seen].map((k) => manifest[k]);
}

const entries = Object.entries(manifest).filter(([, chunk]) => chunk.isEntry);
const report = { generated_at: new Date().toISOString(), budget_participant_gzip_bytes: PARTICIPANT_BUDGET_BYTES, entries: {} };
let failed = false;

for (const [key, chunk] of entries) {
  const chunks = graph(key);
  const js = chunks.map((c) => c.file);
  const css = [...new Set(chunks.flatMap((c) => c.css ?? []))];
  const files = [...js, ...css];
  const lazy = [...new Set(chunks.flatMap((c) => c.dynamicImports ?? []))].map((k) => manifest[k]?.file).filter(Boolean);
  const chartModules = js.flatMap((f) => (modules[f] ?? []).filter((m) => CHART_MODULE.test(m)));
  const entry = {
    source: key,
    files,
    gzip_bytes: files.reduce((sum, f) => sum + gz(f), 0),
    raw_bytes: files.reduce((sum, f) => sum + raw(f), 0),
    js_gzip_bytes: js.reduce((sum, f) => sum + gz(f), 0),
    css_gzip_bytes: css.reduce((sum, f) => sum + gz(f), 0),
    lazy_chunks: lazy.map((f) => ({ file: f, gzip_bytes: gz(f) })),
    chart_modules_loaded: chartModules.length,
  };
  const name = chunk.name ?? key;
  report.entries[name] = entry;
  console.log(
    `${name.padEnd(12)} ${(entry.gzip_bytes / 1000).toFixed(1).padStart(7)} kB gzip (${(entry.raw_bytes / 1000).toFixed(1)} kB raw) in ${files.length} files` +
      (lazy.length ? `; lazy: ${entry.lazy_chunks.map((l) => `${l.file} ${(l.gzip_bytes / 1000).toFixed(1)} kB`).join(', ')}` : ''),
  );
}

const participant = report.entries.participant;
if (!participant) {
  console.error('error: the build has no participant entry (participant.html)');
  failed = true;
} else {
  if (participant.chart_modules_loaded > 0) {
    console.error(`FAIL: the participant entry loads ${participant.chart_modules_loaded} chart/results module(s)`);
    failed = true;
  } else {
    console.log('ok: the participant entry loads no chart code');
  }
  if (participant.gzip_bytes >= PARTICIPANT_BUDGET_BYTES) {
    console.error(`FAIL: participant entry ${participant.gzip_bytes} B gzip ≥ budget ${PARTICIPANT_BUDGET_BYTES} B`);
    failed = true;
  } else {
    console.log(`ok: participant entry under ${PARTICIPANT_BUDGET_BYTES / 1000} kB gzip`);
  }
}
report.ok = !failed;
// The shared `make bench` format (scripts/bench_report.py): one entry a goal.
report.goals = participant
  ? [
      {
        goal: 'participant entry, gzipped (all it loads at start)',
        measured: Math.round(participant.gzip_bytes / 100) / 10,
        unit: 'kB',
        baseline: null,
        baseline_measured: null,
        ratio: null,
        target: `< ${PARTICIPANT_BUDGET_BYTES / 1000} kB`,
        pass: participant.gzip_bytes < PARTICIPANT_BUDGET_BYTES,
      },
      {
        goal: 'chart/results modules in the participant entry',
        measured: participant.chart_modules_loaded,
        unit: 'modules',
        baseline: null,
        baseline_measured: null,
        ratio: null,
        target: '0',
        pass: participant.chart_modules_loaded === 0,
      },
    ]
  : [];
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`wrote ${out}`);
process.exit(failed ? 1 : 0);
