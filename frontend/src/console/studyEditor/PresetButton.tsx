/** The table 4.1 preset: creates or updates the ten scenarios of the source study. */
import { useState } from 'react';

import { fieldErrors, scenarioPath, scenariosPath, sendJSON } from '../../api';
import type { Impairment, Scenario, StudyDetail } from '../../api';
import { useAction } from '../hooks';
import { TABLE_4_1 } from '../presets';

/** True when a stored direction equals a preset's: delay, jitter and loss, and nothing else set. */
function sameDirection(stored: Impairment, preset: Impairment): boolean {
  const extra = stored as Impairment & Record<string, unknown>;
  const othersNeutral = !extra.gilbert_elliott && !extra.rate_kbit && !extra.reorder_pct && !extra.duplicate_pct && !extra.corrupt_pct;
  return stored.delay_ms === preset.delay_ms && stored.jitter_ms === preset.jitter_ms && stored.loss_pct === preset.loss_pct && othersNeutral;
}

/** The preset's direction as a full profile, so that an update also clears any other factor. */
const fullDirection = (i: Impairment) => ({
  ...i,
  jitter_distribution: 'normal',
  delay_correlation_pct: 0,
  loss_correlation_pct: 0,
  gilbert_elliott: null,
  rate_kbit: 0,
  reorder_pct: 0,
  reorder_correlation_pct: 0,
  duplicate_pct: 0,
  corrupt_pct: 0,
});

export function PresetButton({ study, onChanged }: { study: StudyDetail; onChanged: () => void }) {
  const preset = useAction();
  const [report, setReport] = useState<string | null>(null);

  const apply = async () => {
    const existing = new Map<string, Scenario>(study.scenarios.map((s) => [s.code, s]));
    const changes = TABLE_4_1.filter((p) => {
      const s = existing.get(p.code);
      if (!s) return true;
      return s.label !== p.label || s.is_baseline !== p.is_baseline || !sameDirection(s.upstream, p.upstream) || !sameDirection(s.downstream, p.downstream);
    });
    if (changes.length === 0) {
      setReport('The study already has the ten scenarios of table 4.1.');
      return;
    }
    if (
      study.scenarios.length > 0 &&
      !window.confirm(`Create or update ${changes.length} scenario(s) (${changes.map((c) => c.code).join(', ')}) to match table 4.1?`)
    ) {
      return;
    }
    const problems: string[] = [];
    await preset.run(async () => {
      for (const p of changes) {
        const s = existing.get(p.code);
        const body = { ...p, upstream: fullDirection(p.upstream), downstream: fullDirection(p.downstream) };
        try {
          if (s) await sendJSON('PATCH', scenarioPath(s.id), body);
          else await sendJSON('POST', scenariosPath(), { ...body, study: study.id });
        } catch (error) {
          const flat = Object.entries(fieldErrors(error)).map(([k, v]) => (k ? `${k}: ${v}` : v));
          problems.push(`${p.code}: ${flat.join('; ') || String(error)}`);
        }
      }
    });
    setReport(
      problems.length === 0
        ? `Table 4.1 applied: ${changes.length} scenario(s) created or updated.`
        : `Some scenarios could not be written — ${problems.join(' · ')}`,
    );
    onChanged();
  };

  return (
    <p>
      <button type="button" className="button" disabled={preset.busy} onClick={() => void apply()}>
        Use the table 4.1 preset (10 scenarios)
      </button>{' '}
      {report && <span role="status">{report}</span>}
    </p>
  );
}
