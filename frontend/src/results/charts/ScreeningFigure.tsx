/** The three screening rules side by side: what each needs, whether it could judge, each rater's verdict with its reason. */
import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { FIGURE_WHERE, warningsFor } from '../evidence';
import { qcApplied, qcVerdictText, ruleSummaries, screeningRows, VERDICT_TEXT, verdictText } from '../screening';
import type { RuleSummary, RuleVerdict, Verdict } from '../screening';
import { tablesToPng } from './canvasTable';
import { Figure, HeadedTable } from './Figure';

const VERDICTS: Verdict[] = ['reliable', 'unreliable', 'not_assessable', 'unscreened'];

function countsText(s: RuleSummary): string {
  return VERDICTS.filter((v) => s.counts[v] > 0)
    .map((v) => `${s.counts[v]} ${VERDICT_TEXT[v]}`)
    .join(', ');
}

function judged(s: RuleSummary): string {
  if (s.assessable === null) return s.evidence ?? '';
  const head = s.assessable.ok ? 'assessable' : 'not assessable';
  return [`${head}${s.assessable.reason ? `: ${s.assessable.reason}` : ''}`, s.evidence ?? ''].filter(Boolean).join('; ');
}

function VerdictCell({ v, text = verdictText, rule }: { v: RuleVerdict; text?: (v: RuleVerdict) => string; rule?: string }) {
  return (
    <td className={`rater-status rater-status--${v.status}`} data-status={v.status} data-rule={rule}>
      {text(v)}
    </td>
  );
}

export function ScreeningFigure({ doc }: { doc: AnalysisDoc }) {
  const rows = screeningRows(doc);
  const rules = ruleSummaries(doc, rows);
  const ruleHeader = ['Rule', 'Needs', 'Could it judge?', 'Verdicts'];
  const ruleRows = rules.map((s) => [s.title, s.needs, judged(s) || '—', countsText(s) || '—']);
  const qc = qcApplied(doc); // the P.808 column only where the study asked the checks
  const raterHeader = ['Rater', 'Intra-rater', 'P.913', 'Straight-lining', ...(qc ? ['Quality control'] : [])];
  const raterRows = rows.map((r) => [r.rater, verdictText(r.intra), verdictText(r.p913), verdictText(r.straight), ...(qc ? [qcVerdictText(r.qc)] : [])]);
  const csvHeader = ['rater_id', 'intra_status', 'intra_reason', 'p913_status', 'p913_reason', 'straight_lining_status', 'straight_lining_reason', ...(qc ? ['qc_failed', 'qc_reasons'] : [])];
  const csvRows: Cell[][] = rows.map((r) => [
    r.rater,
    r.intra.status,
    r.intra.reason,
    r.p913.status,
    r.p913.reason,
    r.straight.status,
    r.straight.reason,
    ...(qc ? [r.qc.status === 'unreliable' ? 'true' : r.qc.status === 'reliable' ? 'false' : '', r.qc.status === 'unreliable' ? r.qc.reason : ''] : []),
  ]);
  const png = () =>
    tablesToPng(
      [
        { title: 'Rules', header: ruleHeader, rows: ruleRows },
        { title: 'Raters', header: raterHeader, rows: raterRows },
      ],
      'Rater screening',
    );
  return (
    <Figure
      id="screening"
      reference="Screening"
      title="Rater screening: what each rule could judge"
      caption={
        <>
          Each rule judges a rater only where the design gives it evidence; otherwise the rater is &quot;not assessable&quot; with the
          reason — neither reliable nor unreliable. &quot;Reliable raters only&quot; keeps the raters the intra-rater rule found reliable.
        </>
      }
      points={rows.length}
      csv={{ header: csvHeader, rows: csvRows }}
      png={png}
      filename="rater-screening"
      unavailable={rows.length === 0 ? 'no rater has been screened yet' : null}
      warnings={warningsFor(doc, FIGURE_WHERE.screening)}
    >
      <HeadedTable label="Screening rules" header={ruleHeader} rows={rules.length}>
        {rules.map((s, i) => (
          <tr key={s.rule} data-rule={s.rule} data-assessable={s.assessable === null ? undefined : String(s.assessable.ok)}>
            <th scope="row">{s.title}</th>
            <td>{s.needs}</td>
            <td>{ruleRows[i]?.[2]}</td>
            <td>{ruleRows[i]?.[3]}</td>
          </tr>
        ))}
      </HeadedTable>
      <HeadedTable label="Screening per rater" header={raterHeader} className="screening-table" rows={rows.length}>
        {rows.map((r) => (
          <tr key={r.rater} data-rater={r.rater}>
            <th scope="row">{r.rater}</th>
            <VerdictCell v={r.intra} />
            <VerdictCell v={r.p913} />
            <VerdictCell v={r.straight} />
            {qc && <VerdictCell v={r.qc} text={qcVerdictText} rule="quality_control" />}
          </tr>
        ))}
      </HeadedTable>
    </Figure>
  );
}
