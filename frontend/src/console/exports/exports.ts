/**
 * Every download a study offers (issue 35, item 5), with what each is for: the data exports
 * (`/api/v1/studies/{id}/export/…`: tidy CSV, sureal per rating item, JSON, items sidecar)
 * and the policy formats (`/api/v1/studies/{id}/policy/{format}/`, the formats of
 * `qoelab.policies.services.FORMATS`). No format of its own: each entry is an endpoint the
 * backend serves, fetched through the API client (the signed-in session) and saved under a
 * file name built from the study's slug.
 */
import { API_BASE, getText, studyExportCsvPath } from '../../api';
import type { StudyDetail } from '../../api';
import { POLICY_FORMATS, policyPath } from '../../results/policy';
import type { PolicyFormat } from '../../results/policy';

export type ExportGroup = 'data' | 'policy';

export interface ExportEntry {
  /** Stable id (data-export attribute, React key): `tidy-csv`, `sureal-<item>`, `policy-<format>`. */
  id: string;
  group: ExportGroup;
  /** The button's text after "Download". */
  label: string;
  /** One line: what the file is for. */
  purpose: string;
  filename: string;
  /** The media type the saved file gets. */
  type: string;
  /** For a policy format: which one (its errors are explained as the Policy tab does). */
  policyFormat?: PolicyFormat;
}

/** One line per policy format: what a network engineer does with it. */
const POLICY_PURPOSE: Record<PolicyFormat, string> = {
  json: 'The QoE policy itself: every KPI bound with its CI and basis, for `qoe-analysis policy check` or any controller adapter.',
  faucet: 'Meters and ACLs to merge into faucet.yaml (Faucet SDN controller).',
  ovs: 'A shell script of ovs-vsctl/ovs-ofctl calls for an Open vSwitch bridge without a controller.',
  onos: 'REST requests (meters, intents) for an ONOS controller.',
  rest_qos: 'REST requests for the os-ken/Ryu rest_qos application (queues, meters, rules).',
  ietf: 'An IETF network slice service (RFC 7951 JSON) for a RESTCONF slice controller.',
};

const MEDIA: Record<string, string> = { json: 'application/json', yaml: 'application/yaml', sh: 'text/x-shellscript', csv: 'text/csv;charset=utf-8' };

/** The study's exports in the panel's order: data first, then the policy formats. */
export function studyExports(study: Pick<StudyDetail, 'slug' | 'version' | 'rating_items'>): ExportEntry[] {
  const slug = study.slug;
  const items = study.rating_items;
  const data: ExportEntry[] = [
    {
      id: 'tidy-csv',
      group: 'data',
      label: 'tidy CSV',
      purpose: 'One row per rating with the scenario’s factors, the rater and the agent’s provenance: for R, pandas or `qoe-analysis analyze`.',
      filename: `${slug}-ratings.csv`,
      type: MEDIA.csv ?? 'text/csv',
    },
    ...items.map<ExportEntry>((item) => ({
      id: `sureal-${item.key}`,
      group: 'data',
      label: items.length > 1 ? `sureal dataset: ${item.key}` : 'sureal dataset',
      purpose: `The ${item.key} ratings per game × scenario and rater, for the subject model (rater bias and inconsistency) of Netflix’s sureal (\`sureal --dataset FILE\`).`,
      filename: `${slug}-sureal-${item.key}.json`,
      type: 'application/json',
    })),
    {
      id: 'study-json',
      group: 'data',
      label: 'study JSON',
      purpose: 'The whole study: design, participants, sessions, answers and every rating (all rounds), for an archive or your own scripts.',
      filename: `${slug}-study.json`,
      type: 'application/json',
    },
    {
      id: 'items-sidecar',
      group: 'data',
      label: 'items sidecar',
      purpose: 'The rating items with their scales, the acceptance rule and the fast-rating floor: the tidy CSV’s description (`qoe-analysis analyze --items`).',
      filename: `${slug}-items.json`,
      type: 'application/json',
    },
  ];
  const policy = POLICY_FORMATS.map<ExportEntry>((f) => ({
    id: `policy-${f.format}`,
    group: 'policy',
    label: f.label,
    purpose: POLICY_PURPOSE[f.format],
    filename: `qoe-policy-${slug}-v${String(study.version)}-${f.format}.${f.suffix}`,
    type: MEDIA[f.suffix] ?? 'text/plain',
    policyFormat: f.format,
  }));
  return [...data, ...policy];
}

/** The API path of an export; `allowDryRun` asks for a policy learnt mostly from dry-run ratings. */
export function exportPath(studyId: number, entry: ExportEntry, allowDryRun = false): string {
  if (entry.policyFormat !== undefined) {
    return policyPath(studyId, entry.policyFormat, { reliableOnly: false, serverIp: '', serverPort: '', protocol: 'udp', allowDryRun });
  }
  const base = `${API_BASE}/studies/${String(studyId)}/export`;
  if (entry.id === 'tidy-csv') return studyExportCsvPath(studyId);
  if (entry.id === 'study-json') return `${base}/json/`;
  if (entry.id === 'items-sidecar') return `${base}/items/`;
  return `${base}/sureal/?item=${encodeURIComponent(entry.id.slice('sureal-'.length))}`;
}

/** Fetches an export through the API client; the file's contents as a Blob of the entry's type. */
export async function fetchExport(studyId: number, entry: ExportEntry, allowDryRun = false): Promise<Blob> {
  const text = await getText(exportPath(studyId, entry, allowDryRun));
  if (text.trim() === '') throw new Error('The server answered an empty file.');
  return new Blob([text], { type: entry.type });
}
