/**
 * `/console/studies/:id/policy` — the Policy tab: what the policy was learnt from first
 * (raters, ratings, the dry-run share and the analysis' warnings), each game class's joint
 * corner (every bound reached at once, with its predicted and observed share acceptable),
 * the KPI bounds per class and direction with their CI and basis (from the study's latest
 * finished analysis), and one-click downloads of the policy JSON and every controller
 * format, each with how to load it. A policy learnt mostly from dry-run ratings is refused
 * by the API; the refusal offers "Export anyway (dry-run ratings)", which asks again with
 * `allow_dry_run=true` for the page and every download.
 */
import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';

import { getText, studyPath, useApiQuery } from '../api';
import type { StudyDetail } from '../api';
import { ErrorMessage, Loading } from '../components/StatusMessage';
import { StudyNav, useStudyId } from '../console/ui';
import { HeadedTable } from './charts/Figure';
import { download } from './csv';
import { boundRows, dryRunText, isDryRunRefusal, jointRows, POLICY_FORMATS, policyErrorText, policyPath } from './policy';
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
      {policy.isError && isDryRunRefusal(policy.error) && (
        <div className="status status--error" role="alert" data-policy-error="dry_run">
          <p>{policyErrorText(policy.error)}</p>
          <p>Dry-run ratings were given on a station that applied no impairment: a controller configured from them enforces bounds no player has rated. Export it only to try the tool chain.</p>
          <button type="button" className="button" onClick={() => { setParams({ ...params, allowDryRun: true }); }}>
            Export anyway (dry-run ratings)
          </button>
        </div>
      )}
      {policy.isError && !isDryRunRefusal(policy.error) && (
        <div className="status status--error" role="alert" data-policy-error>
          <p>The policy is not available: {policyErrorText(policy.error)}</p>
          <button type="button" className="button" onClick={() => void policy.refetch()}>
            Try again
          </button>
        </div>
      )}
      {params.allowDryRun && (
        <p className="status" data-testid="policy-dry-run-allowed">
          Exporting although most ratings are dry-run ratings (allow_dry_run=true), for the page and every download.{' '}
          <button type="button" className="button" onClick={() => { setParams({ ...params, allowDryRun: false }); }}>
            Stop allowing dry-run ratings
          </button>
        </p>
      )}
      {policy.data && <Provenance policy={policy.data} />}
      {policy.data && <JointTable policy={policy.data} />}
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

/** What the policy was learnt from, before any bound: raters, ratings, dry-run share, warnings. */
function Provenance({ policy }: { policy: PolicyDoc }) {
  const p = policy.provenance;
  const dry = dryRunText(p);
  const warnings = p.warnings ?? [];
  return (
    <section aria-labelledby="policy-provenance" data-testid="policy-provenance">
      <h3 id="policy-provenance">Learnt from</h3>
      <p>
        {p.n_ratings ?? '?'} ratings of {p.n_raters ?? '?'} raters{p.reliable_only ? ' (reliable raters only)' : ''}, study version{' '}
        {typeof p.study?.version === 'string' || typeof p.study?.version === 'number' ? p.study.version : '?'}.{dry ? ` ${dry}` : ''}
      </p>
      {warnings.length > 0 && (
        <>
          <p>The analysis warns ({warnings.length}); every export carries these warnings:</p>
          <ul className="policy__warnings" data-testid="policy-warnings">
            {warnings.map((w, i) => (
              <li key={i} data-code={w.code}>
                {w.message}
                {w.where ? <span className="muted"> ({w.where})</span> : null}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** Policy 2.0: per class, the corner where every bound is reached at once. */
function JointTable({ policy }: { policy: PolicyDoc }) {
  const rows = jointRows(policy);
  if (rows.length === 0) return null;
  return (
    <>
      <HeadedTable
        label="Joint corner per game class"
        header={['Game class', 'Games', 'All bounds at once', 'Predicted P(acceptable)', 'Observed near the corner', 'Target', 'Status']}
        rows={rows.length}
      >
        {rows.map((r) => (
          <tr key={r.classId} data-class={r.classId}>
            <th scope="row">{r.classId}</th>
            <td>{r.games}</td>
            <td>{r.corner}</td>
            <td className="num">{r.predicted}</td>
            <td className="num">{r.observed}</td>
            <td className="num">{r.target}</td>
            <td>{r.status}</td>
          </tr>
        ))}
      </HeadedTable>
      <p className="figure__caption">
        The corner is where a path reaches every bound of its class at once. The bounds are chosen there by the joint acceptability model (logistic regression on all factors, errors clustered by rater) so that the lower end of
        the 95 % interval of the predicted share acceptable meets the target; the observed share counts the ratings near the corner.
      </p>
    </>
  );
}

function BoundsTable({ policy }: { policy: PolicyDoc }) {
  const rows = boundRows(policy);
  return (
    <>
      <p>
        Each bound is its class’s joint corner value (basis “joint logistic”): a controller may admit every bound of a class at once. A class whose data
        support no joint region has no bound and says why. Beside each bound, the marginal estimate (one factor at a time, the others at baseline; the
        bound of policy 1.0) for comparison: it is not a bound, since reached together such values need not be acceptable.
      </p>
      <HeadedTable
        label="KPI bounds per game class and direction"
        header={['Game class', 'Games', 'Direction', 'KPI', 'Bound (joint corner)', 'Marginal estimate', 'Basis']}
        rows={rows.length}
      >
        {rows.map((r, i) => (
          <tr key={i} title={r.note || undefined} data-class={r.classId}>
            <th scope="row">{r.classId}</th>
            <td>{r.games}</td>
            <td>{r.direction}</td>
            <td>{r.kpi}</td>
            <td className="num">{r.bound}</td>
            <td className="num">{r.marginal}</td>
            <td>{r.basis}</td>
          </tr>
        ))}
      </HeadedTable>
      <p className="figure__caption">Hover a row for the analysis&apos; note on how the bound was found.</p>
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
