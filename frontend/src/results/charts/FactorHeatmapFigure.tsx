/** MOS over two factors (grid designs): one cell per pair of tested levels, untested pairs marked. */
import { useState } from 'react';

import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { factorGrid, factorTitle, formatLevel, holdText, varyingFactors } from '../factors';
import type { HoldMode } from '../factors';
import { round } from '../transforms';
import { tablesToPng } from './canvasTable';
import { fmt } from './common';
import { FactorSelect, HoldSelect } from './FactorMosFigure';
import { Figure } from './Figure';

/** Red (MOS 1) → yellow (3) → green (5); text stays readable on each. */
export function mosColour(mos: number): string {
  const t = Math.min(1, Math.max(0, (mos - 1) / 4));
  const hue = Math.round(t * 120);
  return `hsl(${hue}, 65%, ${t > 0.35 && t < 0.65 ? 62 : 72}%)`;
}

export function FactorHeatmapFigure({ doc, games, group }: { doc: AnalysisDoc; games: string[]; group: string }) {
  const factors = varyingFactors(doc);
  const [pick, setPick] = useState<{ a: string; b: string }>({ a: '', b: '' });
  const [mode, setMode] = useState<HoldMode>('baseline');
  const a = factors.includes(pick.a) ? pick.a : (factors[0] ?? '');
  const b = factors.includes(pick.b) && pick.b !== a ? pick.b : (factors.find((f) => f !== a) ?? '');
  const grid = a && b ? factorGrid(doc, a, b, games, mode) : { aLevels: [], bLevels: [], cells: [] };
  const tested = grid.cells.filter((c) => c.mos !== null).length;
  const held = a && b ? holdText(doc, [a, b], mode) : '';
  const gameText = games.length === 1 ? games[0] : `${games.length} games pooled`;
  const unavailable = factors.length < 2 ? `needs two factors that vary; this design varies ${factors.length === 0 ? 'none' : `only ${factorTitle(doc, factors[0] ?? '')}`}` : tested === 0 ? `no rated pair of levels with ${held}` : null;
  const header = [a, b, 'n', 'mos', 'ci95_low', 'ci95_high', 'scenarios'];
  const rows: Cell[][] = grid.cells.map((c) => [c.a, c.b, c.n, fmt(c.mos), fmt(c.low), fmt(c.high), c.scenarios.join(' ')]);
  const label = `MOS by ${factorTitle(doc, a)} and ${factorTitle(doc, b)}`;
  const cellAt = (la: unknown, lb: unknown) => grid.cells.find((c) => c.a === la && c.b === lb);
  const png = () =>
    tablesToPng(
      [
        {
          title: `${gameText}; ${held}`,
          header: [`${factorTitle(doc, b)} \\ ${factorTitle(doc, a)}`, ...grid.aLevels.map((l) => formatLevel(doc, a, l))],
          rows: grid.bLevels.map((lb) => [formatLevel(doc, b, lb), ...grid.aLevels.map((la) => round(cellAt(la, lb)?.mos ?? null))]),
          fill: (r, c) => {
            const mos = c > 0 ? cellAt(grid.aLevels[c - 1], grid.bLevels[r])?.mos : null;
            return mos === null || mos === undefined ? null : mosColour(mos);
          },
        },
      ],
      label,
    );
  return (
    <Figure
      id="factor-heatmap"
      reference="Explore"
      title="MOS over two factors"
      caption={
        <>
          One cell per pair of tested levels: MOS (n ratings) for {gameText}, {held} ({group}). Green is good, red is bad; a cell
          marked &quot;not tested&quot; has no scenario with that pair of levels.
        </>
      }
      points={grid.cells.length}
      csv={{ header, rows }}
      png={png}
      filename={`mos-heatmap-${a}-${b}-${mode}`}
      unavailable={unavailable}
      controls={
        factors.length >= 2 && (
          <>
            <FactorSelect doc={doc} label="Columns" value={a} onChange={(v) => { setPick({ a: v, b: v === b ? a : b }); }} />
            <FactorSelect doc={doc} label="Rows" value={b} exclude={a} onChange={(v) => { setPick({ a, b: v }); }} />
            <HoldSelect value={mode} onChange={setMode} />
          </>
        )
      }
    >
      <div className="table-wrap">
        <table className="heatmap__table factor-heatmap" aria-label={label} data-cells={grid.cells.length} data-tested-cells={tested}>
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
                  const c = cellAt(la, lb);
                  const mos = c?.mos ?? null;
                  return (
                    <td
                      key={String(la)}
                      className={`heatmap__cell${mos === null ? ' heatmap__cell--missing' : ''}`}
                      style={mos === null ? undefined : { background: mosColour(mos) }}
                      data-cell={`${String(la)},${String(lb)}`}
                      data-mos={mos === null ? '' : fmt(mos)}
                      title={c?.scenarios.length ? `scenarios ${c.scenarios.join(', ')}` : undefined}
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
    </Figure>
  );
}
