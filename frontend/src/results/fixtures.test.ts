import { describe, expect, it } from 'vitest';

import { ALL_GAMES } from './analysisTypes';
import { gridFixture, oneRaterPerGameFixture, oneSessionFixture, ratingsCsv, table41Fixture } from './fixtures';
import type { Fixture } from './fixtures';

/** Ratings per (scenario, game) and per scenario over every game ("all"), from the fixture's ratings. */
function counts({ ratings }: Fixture): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of ratings) {
    for (const key of [`${r.scenario}/${r.game}`, `${r.scenario}/${ALL_GAMES}`]) out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

describe('the stored analyses of the fixtures', () => {
  it.each([
    ['grid', gridFixture()],
    ['one session', oneSessionFixture()],
    ['one rater per game', oneRaterPerGameFixture()],
    ['table 4.1', table41Fixture()],
  ])('%s: the analysis saw the ratings the fixture makes (regenerate fixtureAnalyses.json if not)', (_, f) => {
    expect(Object.fromEntries(f.doc.conditions.map((c) => [`${c.scenario}/${c.game}`, c.n]))).toEqual(counts(f));
    const pooled = f.doc.mos_by_factor?.single.find((s) => s.game === ALL_GAMES && s.hold === 'averaged');
    if (pooled) expect(pooled.points.reduce((n, p) => n + p.n, 0)).toBe(f.ratings.length);
  });

  it('writes the tidy CSV the analysis reads', () => {
    const lines = ratingsCsv(gridFixture()).trim().split('\n');
    expect(lines[0]).toBe('rater_id,session_id,game,game_pace,scenario,ds_delay_ms,ds_jitter_ms,ds_loss_pct,us_delay_ms,us_jitter_ms,us_loss_pct,us_ge_p_pct,us_ge_r_pct,rating');
    expect(lines).toHaveLength(gridFixture().ratings.length + 1);
    expect(lines).toContain('P1,P1-S1,racing,fast,GE,0,10,0,0,10,0,5,50,3');
  });

  it('table 4.1 stands for a document stored before mos_by_factor', () => {
    expect(table41Fixture().doc.mos_by_factor).toBeUndefined();
  });
});
