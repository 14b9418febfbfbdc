import type { Game } from '../api';
import { PaceBadge } from './PaceBadge';

export function GamesTable({ games }: { games: readonly Game[] }) {
  if (games.length === 0) {
    return <p className="muted">This study has no games yet.</p>;
  }
  return (
    <div className="table-wrap">
      <table className="data-table">
        <caption>Games ({games.length})</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Pace class</th>
          </tr>
        </thead>
        <tbody>
          {games.map((game) => (
            <tr key={game.id}>
              <th scope="row">{game.name}</th>
              <td>
                <PaceBadge pace={game.pace} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
