import type { Impairment, Scenario } from '../api';
import { formatNumber } from './format';

const DIRECTIONS = [
  { key: 'upstream', label: 'Upstream (client→server)' },
  { key: 'downstream', label: 'Downstream (server→client)' },
] as const;

const METRICS: readonly { key: keyof Impairment; label: string }[] = [
  { key: 'delay_ms', label: 'Delay (ms)' },
  { key: 'jitter_ms', label: 'Jitter (ms)' },
  { key: 'loss_pct', label: 'Loss (%)' },
];

export function ScenariosTable({ scenarios }: { scenarios: readonly Scenario[] }) {
  if (scenarios.length === 0) {
    return <p className="muted">This study has no network scenarios yet.</p>;
  }
  return (
    <div className="table-wrap">
      <table className="data-table data-table--numeric">
        <caption>Network scenarios ({scenarios.length}), in presentation order</caption>
        <colgroup span={2} />
        {DIRECTIONS.map((direction) => (
          <colgroup key={direction.key} span={METRICS.length} className="direction-group" />
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
              <th key={direction.key} scope="colgroup" colSpan={METRICS.length} className="group-head">
                {direction.label}
              </th>
            ))}
          </tr>
          <tr>
            {DIRECTIONS.map((direction) =>
              METRICS.map((metric) => (
                <th key={`${direction.key}-${metric.key}`} scope="col" className="num">
                  {metric.label}
                </th>
              )),
            )}
          </tr>
        </thead>
        <tbody>
          {scenarios.map((scenario) => (
            <tr key={scenario.id} className={scenario.is_baseline ? 'is-baseline' : undefined}>
              <th scope="row">
                <code>{scenario.code}</code>
              </th>
              <td>
                {scenario.label}
                {scenario.is_baseline && <span className="badge badge--baseline">Baseline</span>}
              </td>
              {DIRECTIONS.map((direction) =>
                METRICS.map((metric) => (
                  <td key={`${direction.key}-${metric.key}`} className="num">
                    {formatNumber(scenario[direction.key][metric.key])}
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
