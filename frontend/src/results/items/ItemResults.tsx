/**
 * Results per rating item (issue 15): choose an item to see its MOS with 95 % t-CI per
 * scenario (all games pooled), SOS parameter a on the item's scale, %GoB/%PoW, and its MOS
 * per scenario and game (ItemGameFigure, issue 35: fast vs slow for every item); below, the
 * correlations between items (per-scenario MOS: Pearson r and Spearman ρ; per rating:
 * Spearman ρ) and the response times. Shown only when the study has more than one item.
 */
import { useId, useState } from 'react';

import { ALL_GAMES } from '../analysisTypes';
import { intervalStatus, intervalText } from '../evidence';
import { ItemCorrelationFigure } from './ItemCorrelationFigure';
import { ItemGameFigure } from './ItemGameFigure';
import { multiItemSections, pooledMos } from './itemsDoc';
import type { Correlation, ItemsSections } from './itemsDoc';

const fmt = (x: number | null | undefined, digits = 2) => (x === null || x === undefined ? '—' : x.toFixed(digits));
const corr = (c: Correlation) => (c.r === null ? `— (n = ${c.n})` : `${c.r.toFixed(2)} (n = ${c.n})`);

export function ItemResults({ doc }: { doc: object }) {
  const sections = multiItemSections(doc);
  if (!sections) return null;
  return <ItemResultsFor sections={sections} />;
}

function ItemResultsFor({ sections }: { sections: ItemsSections }) {
  const [chosen, setChosen] = useState(sections.items[0]?.key ?? '');
  const selectId = useId();
  const item = sections.items.find((i) => i.key === chosen) ?? sections.items[0];
  const section = item ? sections.per_item[item.key] : undefined;
  return (
    <section className="card" aria-labelledby={`${selectId}-heading`}>
      <h3 id={`${selectId}-heading`} className="card__title">
        Rating items
      </h3>
      <div className="field">
        <label htmlFor={selectId}>Item</label>
        <select id={selectId} value={item?.key} onChange={(e) => { setChosen(e.target.value); }}>
          {sections.items.map((i) => (
            <option key={i.key} value={i.key}>
              {i.key} — {i.question.en}
            </option>
          ))}
        </select>
      </div>
      {item && section && (
        <>
          <p className="muted" data-testid="item-scale">
            Scale {section.scale.kind} from {section.scale.min} to {section.scale.max} · {section.n} ratings · SOS a = {fmt(section.sos?.a, 3)} (bounds{' '}
            {section.scale.min} and {section.scale.max}) · GoB {fmt(section.gob_pow?.gob_pct, 1)} % · PoW {fmt(section.gob_pow?.pow_pct, 1)} %
          </p>
          <div className="table-wrap">
            <table className="data-table" aria-label={`MOS of ${item.key} per scenario`}>
              <thead>
                <tr>
                  <th scope="col">Scenario</th>
                  <th scope="col" className="num">n</th>
                  <th scope="col" className="num">MOS</th>
                  <th scope="col" className="num">95 % CI</th>
                  <th scope="col">Interval</th>
                </tr>
              </thead>
              <tbody>
                {pooledMos(section, ALL_GAMES).map((row) => (
                  <tr key={`${row.scenario}-${row.game}`}>
                    <th scope="row">{row.scenario}</th>
                    <td className="num">{row.n}</td>
                    <td className="num">{fmt(row.mos)}</td>
                    <td className="num">
                      {fmt(row.ci95_low)} – {fmt(row.ci95_high)}
                    </td>
                    <td>{intervalText(intervalStatus(row, { min: section.scale.min, max: section.scale.max, step: section.scale.step }))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ItemGameFigure itemKey={item.key} section={section} paces={sections.meta?.games ?? {}} />
        </>
      )}
      <ItemCorrelations sections={sections} />
      <ItemCorrelationFigure sections={sections} />
      <ResponseTimesTable sections={sections} />
    </section>
  );
}

function ItemCorrelations({ sections }: { sections: ItemsSections }) {
  const pairs = sections.item_correlations?.pairs ?? [];
  if (pairs.length === 0) return null;
  return (
    <div className="table-wrap">
      <table className="data-table" aria-label="Item correlations">
        <caption>Correlations between items: per scenario (MOS, all games pooled) and per rating</caption>
        <thead>
          <tr>
            <th scope="col">Items</th>
            <th scope="col" className="num">Pearson r (scenario MOS)</th>
            <th scope="col" className="num">Spearman ρ (scenario MOS)</th>
            <th scope="col" className="num">Spearman ρ (ratings)</th>
          </tr>
        </thead>
        <tbody>
          {pairs.map((pair) => (
            <tr key={pair.items.join('-')}>
              <th scope="row">
                {pair.items[0]} × {pair.items[1]}
              </th>
              <td className="num">{corr(pair.conditions.pearson)}</td>
              <td className="num">{corr(pair.conditions.spearman)}</td>
              <td className="num">{corr(pair.ratings.spearman)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ResponseTimesTable({ sections }: { sections: ItemsSections }) {
  const times = sections.response_times;
  if (!times || Object.keys(times).length === 0) return null;
  const fast = sections.fast_raters ?? [];
  return (
    <div className="table-wrap">
      <p data-testid="fast-raters">
        {fast.length === 0
          ? 'No rater answers implausibly fast.'
          : `Fast raters (median below the floor): ${fast.map((r) => `${r.rater_id} (median ${(r.median_ms / 1000).toFixed(1)} s, ${Math.round(100 * r.share_fast)} % fast)`).join(', ')}.`}
      </p>
      <table className="data-table" aria-label="Response times">
        <caption>Response times (rating screen shown → submitted), seconds</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" className="num">n</th>
            <th scope="col" className="num">10th percentile</th>
            <th scope="col" className="num">Median</th>
            <th scope="col" className="num">90th percentile</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(times).map(([key, t]) => (
            <tr key={key}>
              <th scope="row">{key}</th>
              <td className="num">{t.n}</td>
              <td className="num">{fmt(t.p10 === null ? null : t.p10 / 1000, 1)}</td>
              <td className="num">{fmt(t.median === null ? null : t.median / 1000, 1)}</td>
              <td className="num">{fmt(t.p90 === null ? null : t.p90 / 1000, 1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
