/**
 * The participant entry must never load chart code: walk the static import graph from
 * src/participant/main.tsx through the sources and check that it reaches neither Chart.js
 * nor the results explorer. (scripts/bundle-size.mjs checks the built chunks as well.)
 */
import { describe, expect, it } from 'vitest';

// Every source file as text, keyed like "/src/participant/main.tsx".
const SOURCES: Record<string, string> = Object.fromEntries(
  Object.entries(import.meta.glob<string>('/src/**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true })).filter(
    ([path]) => !/\.test\.tsx?$/.test(path),
  ),
);
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]/g;

function join(dir: string, spec: string): string {
  const parts = dir.split('/');
  for (const part of spec.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.') parts.push(part);
  }
  return parts.join('/');
}

function resolveLocal(from: string, spec: string): string | null {
  const base = join(from.slice(0, from.lastIndexOf('/')), spec);
  return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((c) => c in SOURCES) ?? null;
}

function graph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of (SOURCES[file] ?? '').matchAll(IMPORT)) {
      const spec = match[1] ?? '';
      if (spec.startsWith('.')) {
        const target = resolveLocal(file, spec);
        if (target) visit(target);
        else if (!spec.endsWith('.css')) throw new Error(`${file}: cannot resolve ${spec}`);
      } else {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec));
      }
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the participant entry', () => {
  const { files, packages } = graph('/src/participant/main.tsx');

  it('imports no chart library (only React)', () => {
    expect([...packages].sort()).toEqual(['react', 'react-dom']);
  });

  it('imports nothing of the console or the results explorer', () => {
    expect([...files].filter((f) => /^\/src\/(results|console|pages)\//.test(f))).toEqual([]);
    expect(files.has('/src/participant/screens.tsx')).toBe(true);
  });

  it('differs from the results explorer, which does load Chart.js (the walker works)', () => {
    const results = graph('/src/results/ResultsPage.tsx');
    expect(results.packages.has('chart.js')).toBe(true);
    expect(results.packages.has('react-chartjs-2')).toBe(true);
  });
});
