/**
 * The study's exports panel (issue 35, item 5): one button per export of {@link studyExports},
 * each with a line on what the file is for. A button fetches its file through the API client
 * and saves it; a failure is said beside the button (a policy without a finished analysis
 * says to run it; one learnt mostly from dry-run ratings offers "Download anyway").
 */
import { useState } from 'react';
import { Link } from 'react-router';

import type { StudyDetail } from '../../api';
import { download } from '../../results/csv';
import { isDryRunRefusal, policyErrorText } from '../../results/policy';
import { fetchExport, studyExports } from './exports';
import type { ExportEntry, ExportGroup } from './exports';
import './exports.css';

interface Failure {
  id: string;
  text: string;
  dryRun: boolean;
}

const GROUPS: { group: ExportGroup; title: string; intro: string }[] = [
  { group: 'data', title: 'Ratings and study data', intro: 'Every rating of the study (training ratings are marked in the CSV and left out of sureal), current as of the click.' },
  {
    group: 'policy',
    title: 'Policy for SDN controllers',
    intro: 'Built from the latest finished analysis of the current study version (all raters, placeholder server address; choose raters and the flow on the Policy tab).',
  },
];

function errorText(entry: ExportEntry, caught: unknown): string {
  if (entry.policyFormat !== undefined) return policyErrorText(caught);
  return caught instanceof Error ? caught.message : String(caught);
}

export function ExportsPanel({ study }: { study: Pick<StudyDetail, 'id' | 'slug' | 'version' | 'rating_items'> }) {
  const entries = studyExports(study);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const save = async (entry: ExportEntry, allowDryRun = false) => {
    setBusy(entry.id);
    setFailure(null);
    setSaved(null);
    try {
      download(entry.filename, await fetchExport(study.id, entry, allowDryRun));
      setSaved(entry.id);
    } catch (caught) {
      setFailure({ id: entry.id, text: errorText(entry, caught), dryRun: entry.policyFormat !== undefined && isDryRunRefusal(caught) });
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="exports card" aria-labelledby="exports-heading" data-testid="exports-panel">
      <h2 id="exports-heading" className="card__title">
        Exports
      </h2>
      {GROUPS.map(({ group, title, intro }) => (
        <section key={group} aria-labelledby={`exports-${group}`}>
          <h3 id={`exports-${group}`}>{title}</h3>
          <p className="muted">{intro}</p>
          <ul className="exports__list">
            {entries
              .filter((e) => e.group === group)
              .map((entry) => (
                <li key={entry.id} data-export={entry.id} className="exports__item">
                  <button type="button" className="button" disabled={busy !== null} aria-describedby={`export-${entry.id}-purpose`} onClick={() => void save(entry)}>
                    {busy === entry.id ? 'Downloading…' : `Download ${entry.label}`}
                  </button>
                  <p id={`export-${entry.id}-purpose`} className="exports__purpose">
                    {entry.purpose} <span className="muted">({entry.filename})</span>
                  </p>
                  {saved === entry.id && (
                    <p className="status" role="status">
                      Saved as {entry.filename}.
                    </p>
                  )}
                  {failure?.id === entry.id && (
                    <div className="field-error" role="alert">
                      <p>Not downloaded: {failure.text}</p>
                      {failure.dryRun && (
                        <button type="button" className="button" disabled={busy !== null} onClick={() => void save(entry, true)}>
                          Download anyway (dry-run ratings)
                        </button>
                      )}
                    </div>
                  )}
                </li>
              ))}
          </ul>
        </section>
      ))}
      <p className="muted">
        What each column and field means: docs/api.md (exports) and docs/policy.md; the figures’ own data: “Download CSV” beside each figure on the{' '}
        <Link to={`/console/studies/${String(study.id)}/results`}>Results</Link> tab.
      </p>
    </section>
  );
}
