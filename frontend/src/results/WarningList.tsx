/**
 * The analysis' warnings (`doc.warnings`): all of them first on the results page, grouped by
 * severity and by what they concern, and each figure's own beside it. Severity is said in
 * words (not by colour alone); each warning keeps its code for the browser tests.
 */
import { useId } from 'react';

import { groupWarnings, SEVERITY_TEXT, severityOf } from './evidence';
import type { DocWarning } from './evidence';

/** "reliability.screening.p913" → "reliability › screening › p913". */
export function whereText(where: string): string {
  return where.split('.').join(' › ');
}

function Item({ w, showWhere }: { w: DocWarning; showWhere: boolean }) {
  return (
    <li data-warning={w.code} data-where={w.where} data-severity={severityOf(w.code)}>
      {showWhere && <span className="warnings__where">{whereText(w.where)}: </span>}
      {w.message} <span className="warnings__code">({w.code.replace(/_/g, ' ')})</span>
    </li>
  );
}

/** Every warning of the document, at the top of the results page (nothing when there is none). */
export function WarningsPanel({ warnings }: { warnings: readonly DocWarning[] }) {
  const id = useId();
  if (warnings.length === 0) return null;
  const groups = groupWarnings(warnings);
  const serious = groups.find((g) => g.severity === 'serious');
  return (
    <section className="warnings card" aria-labelledby={`${id}-title`} data-warnings={warnings.length}>
      <h2 id={`${id}-title`} className="warnings__title">
        What these data can support: {warnings.length} warning{warnings.length === 1 ? '' : 's'}
        {serious ? ` (${serious.places.reduce((n, p) => n + p.warnings.length, 0)} limiting)` : ''}
      </h2>
      {groups.map((g) => (
        <div key={g.severity} className={`warnings__group warnings__group--${g.severity}`}>
          <h3 className="warnings__severity" id={`${id}-${g.severity}`}>
            {SEVERITY_TEXT[g.severity]}
          </h3>
          <ul aria-labelledby={`${id}-${g.severity}`}>
            {g.places.flatMap((p) => p.warnings.map((w, i) => <Item key={`${p.where}-${String(i)}`} w={w} showWhere />))}
          </ul>
        </div>
      ))}
    </section>
  );
}

/** A figure's own warnings, under its title (nothing when there is none). */
export function FigureWarnings({ warnings, figure }: { warnings: readonly DocWarning[]; figure: string }) {
  if (warnings.length === 0) return null;
  return (
    <div className="figure__warnings" role="note" aria-label={`Warnings on ${figure}`} data-figure-warnings={warnings.length}>
      <ul>
        {warnings.map((w, i) => (
          <Item key={i} w={w} showWhere={false} />
        ))}
      </ul>
    </div>
  );
}
