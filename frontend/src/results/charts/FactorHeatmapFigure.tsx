/**
 * MOS over two factors (grid designs), as the analysis computed it (`mos_by_factor.pairs`):
 * one cell per pair of tested levels, untested pairs marked; one grid per game shown.
 */
import { useState } from 'react';

import { ALL_GAMES } from '../analysisTypes';
import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { factorGrid, factorNotes, factorTitle, formatLevel, gameLabel, gameKeys, holdText, mosByFactor, NEEDS_RERUN, varyingFactors } from '../factors';
import type { FactorCell, FactorGrid, HoldMode, Level } from '../factors';
import { FIGURE_WHERE, intervalStatus, intervalText, mosScale, warningsFor } from '../evidence';
import type { ScaleRange } from '../evidence';
import { round } from '../transforms';
import { tablesToPng } from './canvasTable';
import { fmt } from './common';
import { FactorSelect, HoldSelect } from './FactorMosFigure';
import { Figure } from './Figure';

/** Red (the scale's bottom) → yellow (its middle) → green (its top); text stays readable on each. */
export function mosColour(mos: number, scale: ScaleRange = { min: 1, max: 5, step: 1 }): string {
  const t = Math.min(1, Math.max(0, (mos - scale.min) / (scale.max - scale.min)));
  const hue = Math.round(t * 120);
  return `hsl(${hue}, 65%, ${t > 0.35 && t < 0.65 ? 62 : 72}%)`;
}

function gridsText(keys: readonly string[]): string {
  if (keys.length === 1) return keys[0] === ALL_GAMES ? 'all games pooled' : `game ${keys[0] ?? ''}`;
  return `each selected game apart (${keys.join(', ')}; the analysis pools only over every game)`;
}

function cellAt(grid: FactorGrid, la: Level | undefined, lb: Level | undefined): FactorCell | undefined {
  return grid.cells.find((c) => c.a === la && c.b === lb);
}

/** A cell's tooltip: its scenarios and its interval (or why it has none). */
function cellTitle(c: FactorCell | undefined, scale: ScaleRange): string | undefined {
  if (!c?.scenarios.length) return undefined;
  const status = intervalStatus(c, scale);
  const ci = c.ci95_low !== null && c.ci95_high !== null ? `95 % CI ${round(c.ci95_low)}–${round(c.ci95_high)}` : '';
  const said = status === 'clipped' || status === 'n_too_small' ? intervalText(status) : '';
  return [`scenarios ${c.scenarios.join(', ')}`, ci, said].filter(Boolean).join('; ');
}

function GridTable({ doc, a, b, grid, label }: { doc: AnalysisDoc; a: string; b: string; grid: FactorGrid; label: string }) {
  const scale = mosScale(doc);
  const tested = grid.cells.filter((c) => c.mos !== null).length;
  return (
    <div className="table-wrap">
      <table className="heatmap__table factor-heatmap" aria-label={label} data-game={grid.game} data-cells={grid.cells.length} data-tested-cells={tested}>
        <thead>
          <tr>
            <th scope="col">
              {factorTitle(doc, b)} ↓ / {factorTitle(doc, a)} →
            </th>
            {grid.aLevels.map((la) => (
              <th key={String(la)} scope="col">
                {formatLevel(doc, a, la)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {grid.bLevels.map((lb) => (
            <tr key={String(lb)}>
              <th scope="row">{formatLevel(doc, b, lb)}</th>
              {grid.aLevels.map((la) => {
                const c = cellAt(grid, la, lb);
                const mos = c?.mos ?? null;
                return (
                  <td
                    key={String(la)}
                    className={`heatmap__cell${mos === null ? ' heatmap__cell--missing' : ''}`}
                    style={mos === null ? undefined : { background: mosColour(mos, scale) }}
                    data-cell={`${String(la)},${String(lb)}`}
                    data-mos={mos === null ? '' : fmt(mos)}
                    data-ci-status={c ? (intervalStatus(c, scale) ?? '') : ''}
                    title={cellTitle(c, scale)}
                  >
                    {mos === null ? 'not tested' : `${round(mos)} (n = ${c?.n ?? 0})`}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function FactorHeatmapFigure({ doc, games, group }: { doc: AnalysisDoc; games: string[]; group: string }) {
  const factors = varyingFactors(doc);
  const section = mosByFactor(doc);
  const [pick, setPick] = useState<{ a: string; b: string }>({ a: '', b: '' });
  const [mode, setMode] = useState<HoldMode>('baseline');
  const a = factors.includes(pick.a) ? pick.a : (factors[0] ?? '');
  const b = factors.includes(pick.b) && pick.b !== a ? pick.b : (factors.find((f) => f !== a) ?? '');
  const keys = gameKeys(doc, games, false);
  const grids = section && a && b ? keys.map((game) => factorGrid(section, a, b, game, mode)) : [];
  const tested = grids.reduce((sum, g) => sum + g.cells.filter((c) => c.mos !== null).length, 0);
  const cells = grids.reduce((sum, g) => sum + g.cells.length, 0);
  const held = a && b ? holdText(doc, [a, b], mode) : '';
  const unavailable =
    factors.length < 2
      ? `needs two factors that vary; this design varies ${factors.length === 0 ? 'none' : `only ${factorTitle(doc, factors[0] ?? '')}`}`
      : !section
        ? NEEDS_RERUN
        : tested === 0
          ? `no rated pair of levels with ${held}`
          : null;
  const scale = mosScale(doc);
  const header = ['game', a, b, 'n', 'mos', 'ci95_low', 'ci95_high', 'ci95_status', 'scenarios'];
  const rows: Cell[][] = grids.flatMap((g) =>
    g.cells.map((c) => [g.game, c.a, c.b, c.n, fmt(c.mos), fmt(c.ci95_low), fmt(c.ci95_high), intervalText(intervalStatus(c, scale)) || null, c.scenarios.join(' ')]),
  );
  const label = `MOS by ${factorTitle(doc, a)} and ${factorTitle(doc, b)}`;
  const labelOf = (game: string) => (grids.length > 1 ? `${label}, ${gameLabel(game)}` : label);
  const notes = factorNotes(section, [a, b]);
  const png = () =>
    tablesToPng(
      grids.map((grid) => ({
        title: `${gameLabel(grid.game)}; ${held}`,
        header: [`${factorTitle(doc, b)} \\ ${factorTitle(doc, a)}`, ...grid.aLevels.map((l) => formatLevel(doc, a, l))],
        rows: grid.bLevels.map((lb) => [formatLevel(doc, b, lb), ...grid.aLevels.map((la) => round(cellAt(grid, la, lb)?.mos ?? null))]),
        fill: (r, c) => {
          const mos = c > 0 ? cellAt(grid, grid.aLevels[c - 1], grid.bLevels[r])?.mos : null;
          return mos === null || mos === undefined ? null : mosColour(mos, scale);
        },
      })),
      label,
    );
  return (
    <Figure
      id="factor-heatmap"
      reference="Explore"
      title="MOS over two factors"
      caption={
        <>
          One cell per pair of tested levels: MOS (n ratings) for {gridsText(keys)}, {held} ({group}). Green is good, red is bad (on the item's scale, {scale.min}–{scale.max}); a
          cell marked &quot;not tested&quot; has no scenario with that pair of levels.
        </>
      }
      points={cells}
      csv={{ header, rows }}
      png={png}
      filename={`mos-heatmap-${a}-${b}-${mode}`}
      unavailable={unavailable}
      note={notes.length > 0 ? notes.join(' ') : undefined}
      warnings={warningsFor(doc, FIGURE_WHERE.factorHeatmap)}
      controls={
        factors.length >= 2 &&
        section && (
          <>
            <FactorSelect doc={doc} label="Columns" value={a} onChange={(v) => { setPick({ a: v, b: v === b ? a : b }); }} />
            <FactorSelect doc={doc} label="Rows" value={b} exclude={a} onChange={(v) => { setPick({ a, b: v }); }} />
            <HoldSelect value={mode} onChange={setMode} />
          </>
        )
      }
    >
      {grids.map((grid) => (
        <GridTable key={grid.game} doc={doc} a={a} b={b} grid={grid} label={labelOf(grid.game)} />
      ))}
    </Figure>
  );
}
