/** The study's games: one editable row each, plus a row to add one. */
import { useState } from 'react';

import { gamePath, gamesPath, sendJSON } from '../../api';
import type { Game, Pace, StudyDetail } from '../../api';
import { RowActions, useEditRow } from './editRow';

const PACES: { value: Pace; label: string }[] = [
  { value: 'fast', label: 'fast (first-person)' },
  { value: 'medium', label: 'medium (third-person)' },
  { value: 'slow', label: 'slow (omnipresent)' },
];

export function GamesEditor({ study, onChanged }: { study: StudyDetail; onChanged: () => void }) {
  return (
    <section aria-labelledby="games-heading">
      <h3 id="games-heading">Games</h3>
      <p className="muted">The pace class follows Claypool &amp; Claypool: how fast the player must react.</p>
      <div className="table-wrap">
        <table className="data-table edit-table" aria-label="Games">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Pace class</th>
              <th scope="col">Genre</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {study.games.map((game) => (
              <GameRow key={JSON.stringify(game)} studyId={study.id} game={game} onChanged={onChanged} />
            ))}
            <GameRow key={`new-${study.games.length}`} studyId={study.id} game={null} onChanged={onChanged} />
          </tbody>
        </table>
      </div>
    </section>
  );
}

function GameRow({ studyId, game, onChanged }: { studyId: number; game: Game | null; onChanged: () => void }) {
  const [draft, setDraft] = useState<{ name: string; pace: Pace | ''; genre: string }>({
    name: game?.name ?? '',
    pace: game?.pace ?? '',
    genre: game?.genre ?? '',
  });
  const row = useEditRow(onChanged);
  const errors = row.errors;
  const label = game ? game.name : 'new game';
  const dirty = game ? draft.name !== game.name || draft.pace !== game.pace || draft.genre !== game.genre : true;

  const save = () =>
    row.save(() =>
      game
        ? sendJSON<Game>('PATCH', gamePath(game.id), draft)
        : sendJSON<Game>('POST', gamesPath(), { ...draft, study: studyId }),
    );

  return (
    <tr className={game ? undefined : 'is-new'}>
      <td>
        <input aria-label={`Name of ${label}`} aria-invalid={Boolean(errors.name)} value={draft.name} placeholder={game ? undefined : 'Add a game…'} onChange={(e) => { setDraft({ ...draft, name: e.target.value }); }} />
        {errors.name && <p className="field-error">{errors.name}</p>}
      </td>
      <td>
        <select aria-label={`Pace class of ${label}`} aria-invalid={Boolean(errors.pace)} value={draft.pace} onChange={(e) => { setDraft({ ...draft, pace: e.target.value as Pace }); }}>
          <option value="">choose…</option>
          {PACES.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
        {errors.pace && <p className="field-error">{errors.pace}</p>}
      </td>
      <td>
        <input aria-label={`Genre of ${label}`} value={draft.genre} onChange={(e) => { setDraft({ ...draft, genre: e.target.value }); }} />
      </td>
      <RowActions
        isNew={!game}
        busy={row.busy}
        dirty={dirty}
        onSave={save}
        removeLabel="Delete"
        onRemove={game ? () => row.remove(gamePath(game.id), `Delete the game ${game.name}?`) : undefined}
        error={errors[''] ?? errors.study}
      />
    </tr>
  );
}
