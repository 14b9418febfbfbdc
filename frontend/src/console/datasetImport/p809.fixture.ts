/**
 * The worked example of docs/importing-data.md for the dataset import's tests: the three
 * files of fixtures/data/p809_dataset/ (their headers), its descriptor (the real file), and a
 * describe answer shaped as `POST /api/v1/datasets/describe/` gives it for those files.
 */
import given from '../../../../fixtures/data/p809_dataset/descriptor.json';
import type { ColumnInfo, DescribeResult } from './api';

const WIRED = [
  'Player',
  'Round',
  'Game',
  'QoE',
  'DL delay [ms]',
  'UL delay [ms]',
  'DL jitter [ms]',
  'UL jitter [ms]',
  'DL loss',
  'UL loss',
  'Play again',
  'CPU [%]',
  'Play time [s]',
  'Age',
  'Gaming hours',
  'Comment',
];

/** Each file's header: the mobile part has no CPU column. */
export const HEADERS: Record<string, string[]> = {
  'wired_a.csv': WIRED,
  'wired_b.csv': WIRED,
  'mobile.csv': WIRED.filter((name) => name !== 'CPU [%]'),
};

/** The fixture's descriptor (a fresh copy: tests may not change the shared one). */
export const GIVEN = (): Record<string, unknown> => structuredClone(given);

const factor = (name: string, key: string, direction: string, unit: string) => ({
  name,
  type: 'number',
  role: 'factor',
  factor: key,
  direction,
  unit,
  why: 'a network factor by its name',
});

/** describe's draft: what `qoe_analysis.dataset.describe` proposes for the three files. */
function draft(): Record<string, unknown> {
  const notes = { why: 'not recognised: give it a role or leave it ignored' };
  const fields: Record<string, unknown>[] = [
    { name: 'Player', type: 'string', role: 'rater', why: 'a rater by its name' },
    { name: 'Round', type: 'integer', role: 'ignore', ...notes },
    { name: 'Game', type: 'string', role: 'game', why: 'a game by its name' },
    {
      name: 'QoE',
      type: 'integer',
      role: 'rating',
      scale: { kind: 'discrete', min: 0, max: 6 },
      acceptable_from: 3,
      observed: { type: 'integer', distinct: 7, missing: 26, min: 0, max: 6 },
      why: 'a rating by its name',
    },
    factor('DL delay [ms]', 'delay', 'downstream', 'ms'),
    factor('UL delay [ms]', 'delay', 'upstream', 'ms'),
    factor('DL jitter [ms]', 'jitter', 'downstream', 'ms'),
    factor('UL jitter [ms]', 'jitter', 'upstream', 'ms'),
    factor('DL loss', 'loss', 'downstream', 'fraction'),
    factor('UL loss', 'loss', 'upstream', 'fraction'),
    { name: 'Play again', type: 'string', role: 'ignore', why: 'a post-play answer: an outcome, not a cause' },
    { name: 'CPU [%]', type: 'number', role: 'covariate', why: 'a measurement per round' },
    { name: 'Play time [s]', type: 'integer', role: 'covariate', why: 'a measurement per round' },
    { name: 'Age', type: 'integer', role: 'questionnaire', why: 'a questionnaire answer' },
    { name: 'Gaming hours', type: 'string', role: 'questionnaire', why: 'a questionnaire answer' },
    { name: 'Comment', type: 'string', role: 'ignore', ...notes },
  ];
  const resources = Object.keys(HEADERS).map((path) => {
    const space = path.replace(/\.csv$/, '');
    return { path, namespace: space, context: { testbed: space }, ...(path === 'mobile.csv' ? { missing_fields: ['CPU [%]'] } : {}) };
  });
  return {
    profile: 'qoe-lab-dataset',
    version: 1,
    name: 'dataset',
    title: 'dataset',
    resources,
    schema: { missingValues: ['', 'NA'], fields },
  };
}

/** The describe answer: the draft, and each column of each file with its counts. */
export function describeResult(): DescribeResult {
  const descriptor = draft();
  const fields = (descriptor.schema as { fields: Record<string, unknown>[] }).fields;
  const columns: ColumnInfo[] = Object.entries(HEADERS).flatMap(([file, names]) =>
    names.map((name) => {
      const field = fields.find((f) => f.name === name) ?? {};
      return {
        file,
        name,
        type: field.type as ColumnInfo['type'],
        distinct: name === 'QoE' ? 7 : 3,
        missing: name === 'QoE' ? 10 : 0,
        role: String(field.role),
        why: typeof field.why === 'string' ? field.why : '',
      };
    }),
  );
  const files = Object.keys(HEADERS).map((file) => ({ file, rows_read: file === 'wired_a.csv' ? 500 : 300, complete: file !== 'wired_a.csv' }));
  return { descriptor, columns, notes: ["mobile.csv has no column 'CPU [%]'"], files };
}
