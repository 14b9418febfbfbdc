/**
 * `/console/studies/:id/policy` — the Policy tab: KPI bounds per game class and direction
 * with their CI and basis (from the study's latest finished analysis), and one-click
 * downloads of the policy JSON and every controller format, each with how to load it.
 */
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';

import { getText, studyPath, useApiQuery } from '../api';
import type { StudyDetail } from '../api';
import { ErrorMessage, Loading } from '../components/StatusMessage';
import { StudyNav, useStudyId } from '../console/ui';
import { HeadedTable } from './charts/Figure';
import { download } from './csv';
import { boundRows, POLICY_FORMATS, policyErrorText, policyPath } from './policy';
import type { PolicyDoc, PolicyFormat, PolicyParams } from './policy';
import './results.css';

export default function PolicyPage() {
  const studyId = useStudyId(useParams().studyId);
  const study = useApiQuery<StudyDetail>(studyId === null ? null : studyPath(studyId));
  if (studyId === null) return <ErrorMessage title="Not a study" error={new Error('invalid study id')} />;
  return (
    <>
      <StudyNav studyId={studyId} title={study.data?.title} />
      <p>
        <Link to={`/console/studies/${studyId}/results`}>← Results</Link>
      </p>
      <Policy studyId={studyId} />
    </>
  );
}

function Policy({ studyId }: { studyId: number }) {
  const [params, setParams] = useState<PolicyParams>({ reliableOnly: false, serverIp: '', serverPort: '', protocol: 'udp' });
  const policy = useApiQuery<PolicyDoc>(policyPath(studyId, null, params));
  return (
    <div className="policy">
      <h2>Policy: KPI bounds per game class</h2>
      <PolicySettings params={params} onChange={setParams} />
      {policy.isPending && <Loading>Building the policy from the latest analysis…</Loading>}
      {policy.isError && (
        <div className="status status--error" role="alert" data-policy-error>
          <p>The policy is not available: {policyErrorText(policy.error)}</p>
          <button type="button" className="button" onClick={() => void policy.refetch()}>
            Try again
          </button>
        </div>
      )}
      {policy.data && <BoundsTable policy={policy.data} />}
      <Downloads studyId={studyId} params={params} disabled={!policy.data} />
    </div>
  );
}

function PolicySettings({ params, onChange }: { params: PolicyParams; onChange: (p: PolicyParams) => void }) {
  const ip = useId();
  const port = useId();
  const proto = useId();
  return (
    <fieldset className="policy__settings">
      <legend>Settings</legend>
      <label>
        <input type="checkbox" checked={params.reliableOnly} onChange={(e) => { onChange({ ...params, reliableOnly: e.target.checked }); }} /> Reliable raters only (needs that analysis to have run)
      </label>
      <div className="field">
        <label htmlFor={ip}>Game server IPv4 (controller rules match it; empty: a placeholder address)</label>
        <input id={ip} value={params.serverIp} placeholder="198.51.100.7" onChange={(e) => { onChange({ ...params, serverIp: e.target.value }); }} />
      </div>
      <div className="field">
        <label htmlFor={port}>Server port</label>
        <input id={port} inputMode="numeric" value={params.serverPort} placeholder="5004" onChange={(e) => { onChange({ ...params, serverPort: e.target.value }); }} />
      </div>
      <div className="field">
        <label htmlFor={proto}>Protocol</label>
        <select id={proto} value={params.protocol} onChange={(e) => { onChange({ ...params, protocol: e.target.value === 'tcp' ? 'tcp' : 'udp' }); }}>
          <option value="udp">UDP</option>
          <option value="tcp">TCP</option>
        </select>
      </div>
    </fieldset>
  );
}

function BoundsTable({ policy }: { policy: PolicyDoc }) {
  const rows = boundRows(policy);
  const p = policy.provenance;
  return (
    <>
      <p>
        A bound is the largest value at which {policy.target.label ?? `P(rating ≥ ${policy.target.acceptable_from}) ≥ ½`}, with the
        other network factors at baseline. Built from {p.n_ratings ?? '?'} ratings of {p.n_raters ?? '?'} raters
        {p.reliable_only ? ' (reliable raters only)' : ''}, study version {typeof p.study?.version === 'string' || typeof p.study?.version === 'number' ? p.study.version : '?'}.
      </p>
      <HeadedTable
        label="KPI bounds per game class and direction"
        header={['Game class', 'Games', 'Direction', 'KPI', 'Bound', 'Interval', 'Basis']}
        rows={rows.length}
      >
        {rows.map((r, i) => (
          <tr key={i} title={r.note || undefined} data-class={r.classId}>
            <th scope="row">{r.classId}</th>
            <td>{r.games}</td>
            <td>{r.direction}</td>
            <td>{r.kpi}</td>
            <td className="num">{r.bound}</td>
            <td className="num">{r.ci}</td>
            <td>{r.basis}</td>
          </tr>
        ))}
      </HeadedTable>
      <p className="figure__caption">Hover a row for the analysis&apos; note on how the bound was found. Bounds are marginal: a path at the delay bound and the loss bound together is not guaranteed acceptable.</p>
    </>
  );
}

function Downloads({ studyId, params, disabled }: { studyId: number; params: PolicyParams; disabled: boolean }) {
  const [error, setError] = useState<{ format: string; text: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const get = async (format: PolicyFormat, suffix: string) => {
    setError(null);
    setBusy(format);
    try {
      const text = await getText(policyPath(studyId, format, params));
      download(`qoe-policy-study${studyId}-${format}.${suffix}`, new Blob([text], { type: 'text/plain' }));
    } catch (caught) {
      setError({ format, text: policyErrorText(caught) });
    } finally {
      setBusy(null);
    }
  };
  return (
    <section aria-labelledby="policy-downloads">
      <h3 id="policy-downloads">Downloads</h3>
      {disabled && <p className="status">The downloads need the policy above; they are enabled once it loads.</p>}
      <ul className="policy__downloads">
        {POLICY_FORMATS.map((f) => (
          <li key={f.format} data-format={f.format}>
            <button type="button" className="button" disabled={disabled || busy !== null} onClick={() => void get(f.format, f.suffix)}>
              Download {f.label}
            </button>
            <p className="policy__howto">{f.howTo}</p>
            {error?.format === f.format && (
              <p className="field-error" role="alert">
                {error.text}
              </p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
