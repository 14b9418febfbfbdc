import type { Session, StudyDetail } from '../api';

export interface GameProgress {
  game: string;
  pace: string;
  completed: number;
  running: number;
  aborted: number;
  imported: number;
}

/** Sessions per game: completed (incl. imported), running, aborted. */
export function sessionsPerGame(study: StudyDetail, sessions: readonly Session[]): GameProgress[] {
  return study.games.map((game) => {
    const mine = sessions.filter((s) => s.game === game.id);
    return {
      game: game.name,
      pace: game.pace,
      completed: mine.filter((s) => s.state === 'completed').length,
      running: mine.filter((s) => s.state !== 'completed' && s.state !== 'aborted' && s.state !== 'created').length,
      aborted: mine.filter((s) => s.state === 'aborted').length,
      imported: mine.filter((s) => s.imported).length,
    };
  });
}

/** Ratings per scenario code and game name (all rounds; training ratings are not analysed, so not counted), plus a total per scenario. */
export function ratingsPerScenario(
  study: StudyDetail,
  sessions: readonly Session[],
): { codes: string[]; games: string[]; counts: Record<string, Record<string, number>>; totals: Record<string, number> } {
  const codes = study.scenarios.map((s) => s.code);
  const games = study.games.map((g) => g.name);
  const counts: Record<string, Record<string, number>> = {};
  const totals: Record<string, number> = {};
  for (const code of codes) {
    counts[code] = Object.fromEntries(games.map((g) => [g, 0]));
    totals[code] = 0;
  }
  for (const session of sessions) {
    for (const rating of session.ratings) {
      if (rating.training) continue;
      const code = rating.scenario_code;
      const row = (counts[code] ??= Object.fromEntries(games.map((g) => [g, 0])));
      row[session.game_name] = (row[session.game_name] ?? 0) + 1;
      totals[code] = (totals[code] ?? 0) + 1;
      if (!codes.includes(code)) codes.push(code);
    }
  }
  return { codes, games, counts, totals };
}

export interface FlaggedRater {
  rater: string;
  rules: string[];
}

/** Raters flagged by any screening rule of an analysis document, with the rules' names. */
export function flaggedRaters(rejected: Record<string, readonly string[]> | undefined): FlaggedRater[] {
  if (!rejected) return [];
  const names: Record<string, string> = {
    intra_rater: 'intra-rater |ρ| ≤ cut-off',
    p913: 'ITU-T P.913 screening',
    straight_lining: 'same score for every scenario',
  };
  const byRater = new Map<string, string[]>();
  for (const [rule, raters] of Object.entries(rejected)) {
    for (const rater of raters) {
      const list = byRater.get(rater) ?? [];
      list.push(names[rule] ?? rule);
      byRater.set(rater, list);
    }
  }
  return [...byRater.entries()]
    .map(([rater, rules]) => ({ rater, rules }))
    .sort((a, b) => a.rater.localeCompare(b.rater, 'en', { numeric: true }));
}
