/**
 * The data files of a dataset (the descriptor's `resources`): each file's rater namespace
 * (so that "Player 1" of two files stays two raters) and its context values (constant over
 * the file, e.g. `testbed`, analysed as a per-session factor; every file gives the same
 * names), and the declared columns it lacks (`missing_fields`, worked out from the files).
 * Also the missing-value texts and, without a pace column, the games' pace classes.
 */
import { useState } from 'react';

import { isFileOf, missingFieldsOf, PACES } from './mapping';
import type { GamePace, Mapping, ResourceDraft } from './mapping';

export interface ResourceEdits {
  onResource: (index: number, changes: Partial<ResourceDraft>) => void;
  onContextNames: (names: string[]) => void;
}

function ContextAdder({ names, onAdd }: { names: string[]; onAdd: (name: string) => void }) {
  const [name, setName] = useState('');
  const clean = name.trim();
  return (
    <div className="form--inline mapping__adder">
      <label className="mapping__setting">
        New context name
        <input
          value={name}
          placeholder="testbed"
          onChange={(event) => {
            setName(event.target.value);
          }}
        />
      </label>
      <button
        type="button"
        className="button button--small"
        disabled={clean === '' || names.includes(clean)}
        onClick={() => {
          onAdd(clean);
          setName('');
        }}
      >
        Add context
      </button>
    </div>
  );
}

export function ResourcesTable({ mapping, picked, edits }: { mapping: Mapping; picked: string[]; edits: ResourceEdits }) {
  const names = mapping.contextNames;
  return (
    <section aria-labelledby="dataset-files">
      <h4 id="dataset-files">Files</h4>
      <div className="table-wrap">
        <table className="data-table edit-table" data-testid="dataset-resources">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Rater namespace</th>
              {names.map((name) => (
                <th scope="col" key={name}>
                  Context <code>{name}</code>{' '}
                  <button
                    type="button"
                    className="button button--quiet button--small"
                    aria-label={`Remove context ${name}`}
                    onClick={() => {
                      edits.onContextNames(names.filter((other) => other !== name));
                    }}
                  >
                    ×
                  </button>
                </th>
              ))}
              <th scope="col">Declared columns it lacks</th>
            </tr>
          </thead>
          <tbody>
            {mapping.resources.map((resource, index) => (
              <tr key={resource.path} data-testid="dataset-resource" data-path={resource.path}>
                <th scope="row">
                  <code>{resource.path}</code>
                  {!picked.some((file) => isFileOf(file, resource.path)) && <p className="field-error">No file of this name was chosen.</p>}
                </th>
                <td>
                  <input
                    aria-label={`Namespace of ${resource.path}`}
                    value={resource.namespace}
                    maxLength={20}
                    onChange={(event) => {
                      edits.onResource(index, { namespace: event.target.value });
                    }}
                  />
                </td>
                {names.map((name) => (
                  <td key={name}>
                    <input
                      aria-label={`${name} of ${resource.path}`}
                      value={resource.context[name] ?? ''}
                      onChange={(event) => {
                        edits.onResource(index, { context: { ...resource.context, [name]: event.target.value } });
                      }}
                    />
                  </td>
                ))}
                <td>{missingFieldsOf(mapping, resource)?.join(', ') ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="field-hint">
        A namespace is 1–20 letters, digits, “-” or “_”; files with the same namespace share their raters.
      </p>
      <ContextAdder names={names} onAdd={(name) => { edits.onContextNames([...names, name]); }} />
      {picked
        .filter((file) => !mapping.resources.some((resource) => isFileOf(file, resource.path)))
        .map((file) => (
          <p key={file} className="field-error">
            The descriptor names no resource <code>{file}</code>: the import refuses a file it does not describe.
          </p>
        ))}
    </section>
  );
}

/** The games' pace classes (`game_paces`) for files without a pace column. */
export function GamePaces({ paces, onChange }: { paces: GamePace[]; onChange: (paces: GamePace[]) => void }) {
  const set = (index: number, changes: Partial<GamePace>) => {
    onChange(paces.map((entry, at) => (at === index ? { ...entry, ...changes } : entry)));
  };
  return (
    <fieldset className="mapping__paces" data-testid="game-paces">
      <legend>Pace class of each game (the files have no pace column; a game not listed is “medium”)</legend>
      {paces.map((entry, index) => (
        <div key={index} className="form--inline">
          <label className="mapping__setting">
            Game
            <input
              aria-label={`Game ${index + 1}`}
              value={entry.game}
              onChange={(event) => {
                set(index, { game: event.target.value });
              }}
            />
          </label>
          <label className="mapping__setting">
            Pace
            <select
              aria-label={`Pace of game ${index + 1}`}
              value={entry.pace}
              onChange={(event) => {
                set(index, { pace: event.target.value });
              }}
            >
              {(PACES as readonly string[]).includes(entry.pace) ? null : <option value={entry.pace}>{entry.pace}</option>}
              {PACES.map((pace) => (
                <option key={pace} value={pace}>
                  {pace}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="button button--quiet button--small"
            aria-label={`Remove game ${index + 1}`}
            onClick={() => {
              onChange(paces.filter((_, at) => at !== index));
            }}
          >
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button button--small"
        onClick={() => {
          onChange([...paces, { game: '', pace: 'medium' }]);
        }}
      >
        Add a game’s pace
      </button>
    </fieldset>
  );
}
