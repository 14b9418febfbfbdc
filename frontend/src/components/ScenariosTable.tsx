import type { DesignScenario, FactorInfo } from '../api';
import { factorValue, isBurstFactor } from '../console/studyEditor/factorForm';
import { formatNumber } from './format';

const DIRECTIONS = [
  { key: 'upstream', label: 'Upstream (client→server)' },
  { key: 'downstream', label: 'Downstream (server→client)' },
] as const;

/** Without the registry: delay, jitter and loss, as every study has them. */
const BASIC: readonly FactorInfo[] = [
  { key: 'delay_ms', label: 'Delay', unit: 'ms' },
  { key: 'jitter_ms', label: 'Jitter', unit: 'ms' },
  { key: 'loss_pct', label: 'Loss', unit: '%' },
].map((f) => ({ ...f, kind: 'numeric', minimum: 0, maximum: null, neutral: 0, kpi: f.key, choices: [], columns: { downstream: '', upstream: '' } }));

/** A stored scenario (with its id) or one a design preview generated. */
type ScenarioLike = DesignScenario & { id?: number };

/**
 * The columns of one direction: the factors with a policy KPI (delay, jitter, loss) always,
 * any other factor only when some scenario sets it, so that a table 4.1 study keeps its six
 * columns and a study with burst loss shows its parameters.
 */
function columnsOf(factors: readonly FactorInfo[], scenarios: readonly ScenarioLike[], direction: 'upstream' | 'downstream') {
  return factors.filter((f) => {
    if (f.kpi !== null && !isBurstFactor(f)) return true;
    if (isBurstFactor(f)) return scenarios.some((s) => Boolean(s[direction].gilbert_elliott));
    return scenarios.some((s) => factorValue(s[direction], f) !== f.neutral);
  });
}

const cell = (value: number | string): string => (typeof value === 'number' ? formatNumber(value) : value);

export function ScenariosTable({
  scenarios,
  factors = BASIC,
  caption,
}: {
  scenarios: readonly ScenarioLike[];
  /** The factor registry (`GET /api/v1/factors/`); delay, jitter and loss without it. */
  factors?: readonly FactorInfo[];
  caption?: string;
}) {
  if (scenarios.length === 0) {
    return <p className="muted">This study has no network scenarios yet.</p>;
  }
  const columns = { upstream: columnsOf(factors, scenarios, 'upstream'), downstream: columnsOf(factors, scenarios, 'downstream') };
  return (
    <div className="table-wrap">
      <table className="data-table data-table--numeric">
        <caption>{caption ?? `Network scenarios (${scenarios.length}), in presentation order`}</caption>
        <colgroup span={2} />
        {DIRECTIONS.map((direction) => (
          <colgroup key={direction.key} span={columns[direction.key].length} className="direction-group" />
        ))}
        <thead>
          <tr>
            <th scope="col" rowSpan={2}>
              Code
            </th>
            <th scope="col" rowSpan={2}>
              Label
            </th>
            {DIRECTIONS.map((direction) => (
              <th key={direction.key} scope="colgroup" colSpan={columns[direction.key].length} className="group-head">
                {direction.label}
              </th>
            ))}
          </tr>
          <tr>
            {DIRECTIONS.map((direction) =>
              columns[direction.key].map((f) => (
                <th key={`${direction.key}-${f.key}`} scope="col" className="num">
                  {f.unit ? `${f.label} (${f.unit})` : f.label}
                </th>
              )),
            )}
          </tr>
        </thead>
        <tbody>
          {scenarios.map((scenario) => (
            <tr key={scenario.id ?? scenario.code} className={scenario.is_baseline ? 'is-baseline' : undefined}>
              <th scope="row">
                <code>{scenario.code}</code>
              </th>
              <td>
                {scenario.label}
                {scenario.is_baseline && <span className="badge badge--baseline">Baseline</span>}
              </td>
              {DIRECTIONS.map((direction) =>
                columns[direction.key].map((f) => (
                  <td key={`${direction.key}-${f.key}`} className="num">
                    {isBurstFactor(f) && !scenario[direction.key].gilbert_elliott ? '–' : cell(factorValue(scenario[direction.key], f))}
                  </td>
                )),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
