/**
 * Every problem of a refused dataset at once (issue 32, item 3): a table of file, line,
 * column, value and the rule, as the loader lists them (capped by the server), then how many
 * more there are. Shown for a refused request (400) and for a failed import job alike.
 */
import type { Problem } from './api';

/** A cell's value in words: a text as it is, anything else as JSON, none as empty. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function ProblemList({
  heading,
  detail,
  problems,
  more,
}: {
  heading: string;
  detail?: string | undefined;
  problems: Problem[];
  more: number;
}) {
  const total = problems.length + more;
  return (
    <section className="status status--error" role="alert" data-testid="dataset-problems" aria-label="Problems">
      <p>
        <strong>{heading}</strong> {total === 1 ? '1 problem' : `${total} problems`} — nothing was stored.
      </p>
      {detail && <p>{detail}</p>}
      {problems.length > 0 && (
        <div className="table-wrap">
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Line</th>
                <th scope="col">Column</th>
                <th scope="col">Value</th>
                <th scope="col">Rule</th>
              </tr>
            </thead>
            <tbody>
              {problems.map((problem, index) => (
                <tr key={index} data-testid="dataset-problem">
                  <td>{problem.file ?? ''}</td>
                  <td className="num">{problem.line ?? ''}</td>
                  <td>{problem.column ?? ''}</td>
                  <td>
                    <code>{valueText(problem.value)}</code>
                  </td>
                  <td>{problem.rule}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more > 0 && <p data-testid="dataset-problems-more">… and {more} more {more === 1 ? 'problem' : 'problems'}.</p>}
    </section>
  );
}
