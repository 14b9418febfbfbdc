import { describe, expect, it } from 'vitest';

import { flaggedRaters, ratingsPerScenario, sessionsPerGame } from './progress';
import { agentProblem } from './sessionText';
import type { Session, StudyDetail } from '../api';

describe('agentProblem', () => {
  it('explains an agent failure that paused the session, in plain words', () => {
    const log =
      "[10:00:00] Resumed.\n[10:01:00] Could not apply scenario 3 of 10 (D2) at station 'Seat 1': connection refused. No rating can be given for it until the scenario has been applied; resume when the agent is back.";
    const problem = agentProblem('paused', log, 'Seat 1');
    expect(problem?.headline).toBe('The network emulator at station “Seat 1” failed, so the session is paused.');
    expect(problem?.advice).toMatch(/agent is running and reachable.*then press Resume.*Resume is the check/);
  });

  it('says nothing for a pause by the researcher or a healthy session', () => {
    expect(agentProblem('paused', '[10:00:00] Paused by the researcher.', 'Seat 1')).toBeNull();
    expect(agentProblem('playing', '', 'Seat 1')).toBeNull();
  });

  describe('a heartbeat failure while rating (issue 35)', () => {
    const failed = (position: number) =>
      `[10:00:10] Heartbeat failed while rating scenario ${position} of 10 (D2): the agent at http://seat1:8787 is unreachable (ConnectionError)`;

    it('raises the alarm while the agent fails during the rating in progress', () => {
      expect(agentProblem('rating', `[10:00:00] Resumed.\n${failed(3)}`, 'Seat 1', 3)?.headline).toBe(
        'The agent at station “Seat 1” did not answer the heartbeat while the participant rates.',
      );
    });

    it('clears the alarm once the agent answers again', () => {
      const log = `${failed(3)}\n[10:00:20] The agent answers the heartbeat again.`;
      expect(agentProblem('rating', log, 'Seat 1', 3)).toBeNull();
    });

    it('does not bring back the failure of an earlier rating at the next one', () => {
      expect(agentProblem('rating', failed(3), 'Seat 1', 4)).toBeNull();
      expect(agentProblem('playing', failed(3), 'Seat 1', 4)).toBeNull();
    });

    it('raises no alarm when the lease ran out while rating (the agent is healthy)', () => {
      const log =
        "[10:00:10] The agent's lease ran out while rating scenario 3 of 10 (D2): it restored the interfaces (the rating needs no impairment); the next scenario is applied anew.";
      expect(agentProblem('rating', log, 'Seat 1', 3)).toBeNull();
    });
  });

  it('warns when the impairment could not be cleared', () => {
    expect(agentProblem('completed', '[1] Could not clear the impairment: timeout.', null)?.headline).toMatch(/could not be removed/);
  });
});

const study = {
  games: [
    { id: 1, name: 'Racing', pace: 'fast' },
    { id: 2, name: 'RPG', pace: 'medium' },
  ],
  scenarios: [
    { id: 10, code: 'B' },
    { id: 11, code: 'D1' },
  ],
} as unknown as StudyDetail;

const session = (game: number, state: string, codes: string[], imported = false) =>
  ({
    game,
    game_name: game === 1 ? 'Racing' : 'RPG',
    state,
    imported,
    ratings: codes.map((scenario_code) => ({ scenario_code })),
  }) as unknown as Session;

describe('study progress', () => {
  const sessions = [
    session(1, 'completed', ['B', 'D1']),
    session(1, 'completed', ['B', 'D1'], true),
    session(1, 'playing', ['B']),
    session(2, 'aborted', []),
    session(2, 'created', []),
  ];

  it('counts sessions per game by outcome', () => {
    expect(sessionsPerGame(study, sessions)).toEqual([
      { game: 'Racing', pace: 'fast', completed: 2, running: 1, aborted: 0, imported: 1 },
      { game: 'RPG', pace: 'medium', completed: 0, running: 0, aborted: 1, imported: 0 },
    ]);
  });

  it('counts ratings per scenario and game', () => {
    const table = ratingsPerScenario(study, sessions);
    expect(table.codes).toEqual(['B', 'D1']);
    expect(table.counts.B).toEqual({ Racing: 3, RPG: 0 });
    expect(table.totals).toEqual({ B: 3, D1: 2 });
  });

  it('leaves training ratings out of the counts (they are never analysed)', () => {
    const trained = {
      ...session(1, 'completed', []),
      ratings: [
        { scenario_code: 'B', training: true },
        { scenario_code: 'D1', training: true },
        { scenario_code: 'B', training: false },
      ],
    } as unknown as Session;
    expect(ratingsPerScenario(study, [trained]).totals).toEqual({ B: 1, D1: 0 });
  });

  it('lists each flagged rater once with every rule that flagged them', () => {
    expect(flaggedRaters({ intra_rater: ['P10', 'P2'], p913: ['P2'], straight_lining: [] })).toEqual([
      { rater: 'P2', rules: ['intra-rater |ρ| ≤ cut-off', 'ITU-T P.913 screening'] },
      { rater: 'P10', rules: ['intra-rater |ρ| ≤ cut-off'] },
    ]);
    expect(flaggedRaters(undefined)).toEqual([]);
  });
});
