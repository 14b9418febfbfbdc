import { describe, expect, it } from 'vitest';

import { buildMapping, missingFieldsOf, numberOrText, writeDescriptor, writeField } from './mapping';
import type { Mapping } from './mapping';
import { describeResult, GIVEN } from './p809.fixture';

type Json = Record<string, unknown>;

const fieldsOf = (descriptor: Json): Json[] => (descriptor.schema as { fields: Json[] }).fields;
const byName = (fields: Json[]) => Object.fromEntries(fields.map((field) => [String(field.name), field]));

function withField(mapping: Mapping, name: string, changes: Partial<Mapping['fields'][string]>): Mapping {
  const draft = mapping.fields[name];
  if (!draft) throw new Error(`no column ${name}`);
  return { ...mapping, fields: { ...mapping.fields, [name]: { ...draft, ...changes } } };
}

describe('the mapping of a given descriptor', () => {
  it('writes the fixture descriptor back unchanged', () => {
    const given = GIVEN();
    const written = writeDescriptor(buildMapping(describeResult(), given));
    const { schema: givenSchema, ...givenTop } = given;
    const { schema: writtenSchema, ...writtenTop } = written;
    expect(writtenTop).toEqual(givenTop);
    expect((writtenSchema as Json).missingValues).toEqual((givenSchema as Json).missingValues);
    expect(byName(fieldsOf(written))).toEqual(byName(fieldsOf(given)));
  });

  it('leaves the columns the descriptor does not declare undeclared', () => {
    const mapping = buildMapping(describeResult(), GIVEN());
    expect(mapping.fields.Round?.role).toBe('');
    expect(mapping.fields.Comment?.role).toBe('');
    expect(mapping.fields['Play again']?.role).toBe('ignore');
    // describe's notes are about its own draft's roles, not the given ones
    expect(mapping.columns.find((column) => column.name === 'Round')?.why).toBe('');
    const names = fieldsOf(writeDescriptor(mapping)).map((field) => field.name);
    expect(names).not.toContain('Round');
    expect(names).not.toContain('Comment');
  });

  it('keeps a field that names no column of the files, for the import to report', () => {
    const given = GIVEN();
    fieldsOf(given).push({ name: 'Ping [ms]', type: 'number', role: 'covariate' });
    const mapping = buildMapping(describeResult(), given);
    expect(mapping.columns.find((column) => column.name === 'Ping [ms]')?.files).toEqual([]);
    expect(byName(fieldsOf(writeDescriptor(mapping)))['Ping [ms]']).toEqual({ name: 'Ping [ms]', type: 'number', role: 'covariate' });
    // …and does not excuse it in every file's missing_fields (the import would then accept it)
    const resources = writeDescriptor(mapping).resources as Json[];
    expect(resources.map((resource) => resource.missing_fields)).toEqual([undefined, undefined, ['CPU [%]']]);
  });

  it('excuses a column in no file only where the descriptor lists it as missing', () => {
    const given = GIVEN();
    fieldsOf(given).push({ name: 'Ping [ms]', type: 'number', role: 'covariate' });
    (given.resources as Json[])[1] = { ...(given.resources as Json[])[1], missing_fields: ['Ping [ms]'] };
    const resources = writeDescriptor(buildMapping(describeResult(), given)).resources as Json[];
    expect(resources.map((resource) => resource.missing_fields)).toEqual([undefined, ['Ping [ms]'], ['CPU [%]']]);
  });

  it('keeps a second field of one column as it came, for the import to refuse the two roles', () => {
    const given = GIVEN();
    fieldsOf(given).push({ name: 'Game', type: 'string', role: 'questionnaire' });
    const mapping = buildMapping(describeResult(), given);
    expect(mapping.fields.Game?.role).toBe('game'); // the first field is the row, as the loader reads it
    expect(mapping.repeated).toEqual([{ name: 'Game', type: 'string', role: 'questionnaire' }]);
    const games = fieldsOf(writeDescriptor(mapping)).filter((field) => field.name === 'Game');
    expect(games.map((field) => field.role)).toEqual(['game', 'questionnaire']);
  });
});

describe('the mapping of describe’s draft', () => {
  it('counts a column over all files, describe’s own counts first', () => {
    const mapping = buildMapping(describeResult(), null);
    const qoe = mapping.columns.find((column) => column.name === 'QoE');
    expect(qoe?.files).toEqual(['wired_a.csv', 'wired_b.csv', 'mobile.csv']);
    expect(qoe?.missing).toBe(26); // the draft's observed count, not 3 × 10
    const round = mapping.columns.find((column) => column.name === 'Round');
    expect(round?.missing).toBe(0);
    expect(round?.distinct).toBe(3);
    expect(round?.why).toMatch(/^not recognised/);
    expect(mapping.contextNames).toEqual(['testbed']);
    expect(mapping.missingValues).toBe('NA');
  });

  it('lists an optional column a file lacks in its missing_fields, a required one never', () => {
    let mapping = buildMapping(describeResult(), null);
    const mobile = mapping.resources[2];
    if (!mobile) throw new Error('no mobile resource');
    expect(missingFieldsOf(mapping, mobile)).toEqual(['CPU [%]']);
    mapping = withField(mapping, 'CPU [%]', { role: 'factor' });
    expect(missingFieldsOf(mapping, mobile)).toEqual([]);
    mapping = withField(mapping, 'CPU [%]', { role: '' });
    expect(missingFieldsOf(mapping, mobile)).toEqual([]);
  });

  it('writes a changed role with its own settings and drops the old ones', () => {
    const mapping = buildMapping(describeResult(), null);
    const draft = mapping.fields['DL delay [ms]'];
    if (!draft) throw new Error('no column');
    const field = writeField('DL delay [ms]', { ...draft, role: 'rating', item: 'delay_rating', scaleMin: '1', scaleMax: ' 5 ', acceptableFrom: '3.5' });
    expect(field).toEqual({
      name: 'DL delay [ms]',
      type: 'number',
      role: 'rating',
      item: 'delay_rating',
      scale: { min: 1, max: 5 },
      acceptable_from: 3.5,
    });
  });

  it('keeps the scale’s kind and the field’s other properties', () => {
    const mapping = buildMapping(describeResult(), null);
    const written = byName(fieldsOf(writeDescriptor(withField(mapping, 'QoE', { scaleMax: '5', acceptableFrom: '' }))));
    expect(written.QoE).toEqual({
      name: 'QoE',
      type: 'integer',
      role: 'rating',
      scale: { kind: 'discrete', min: 0, max: 5 },
      observed: { type: 'integer', distinct: 7, missing: 26, min: 0, max: 6 },
      why: 'a rating by its name',
    });
  });

  it('writes a new context, the namespaces, the missing values and the game paces', () => {
    let mapping = buildMapping(describeResult(), null);
    mapping = {
      ...mapping,
      contextNames: ['testbed', 'access'],
      resources: mapping.resources.map((resource, index) => ({
        ...resource,
        namespace: index === 0 ? 'wired-a' : resource.namespace,
        context: { ...resource.context, access: index === 2 ? 'mobile' : 'wired' },
      })),
      missingValues: 'NA, -,NA',
      gamePaces: [
        { game: 'Racing', pace: 'fast' },
        { game: ' ', pace: 'slow' },
      ],
    };
    const written = writeDescriptor(mapping);
    expect((written.resources as Json[])[0]).toEqual({ path: 'wired_a.csv', namespace: 'wired-a', context: { testbed: 'wired_a', access: 'wired' } });
    expect(written.game_paces).toEqual({ Racing: 'fast' });
    expect((written.schema as Json).missingValues).toEqual(['', 'NA', '-']);
  });

  it('keeps a value that is not a number as typed, for the import to name it', () => {
    expect(numberOrText(' 4 ')).toBe(4);
    expect(numberOrText('')).toBeUndefined();
    expect(numberOrText('four')).toBe('four');
  });
});
