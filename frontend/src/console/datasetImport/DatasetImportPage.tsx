/**
 * `/console/datasets/import` — a dataset collected elsewhere becomes an analysis-only study
 * (issue 32, item 4; docs/importing-data.md):
 *  1. choose the CSV files, and a descriptor when there is one; "Read the columns" sends the
 *     files to `POST /api/v1/datasets/describe/` (headers and a bounded sample only);
 *  2. the column mapping — the given descriptor's, else describe's draft — is edited here:
 *     each column's role and the role's settings, each file's namespace and context;
 *     "Download descriptor" saves the JSON it writes (the same the CLI reads);
 *  3. "Import" sends the descriptor and the files to `POST /api/v1/datasets/import/`: every
 *     problem found from the descriptor and the headers comes back at once, else an import
 *     job that is followed to the new study (or to every problem of the cells).
 * A YAML descriptor is sent as it is (the page reads JSON only).
 */
import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Link } from 'react-router';

import { factorsPath, useApiQuery } from '../../api';
import type { FactorCatalog } from '../../api';
import { useAction } from '../hooks';
import { ActionError, Field } from '../ui';
import { datasetImportPath, describePath, postForm, refusalOf } from './api';
import type { DatasetJob, DescribeResult, SampleInfo } from './api';
import { ColumnTable } from './ColumnTable';
import './datasetImport.css';
import { JobStatus } from './JobStatus';
import { buildMapping, writeDescriptor } from './mapping';
import type { FieldDraft, Mapping, ResourceDraft } from './mapping';
import { ProblemList } from './ProblemList';
import { GamePaces, ResourcesTable } from './ResourcesTable';

/** The largest descriptor read (a descriptor is a few kB). */
const MAX_DESCRIPTOR_BYTES = 1_000_000;

const isYaml = (file: File): boolean => /\.ya?ml$/i.test(file.name);

/** The descriptor in a JSON file, or why it is not one. */
export async function readDescriptor(file: File): Promise<Record<string, unknown>> {
  if (file.size > MAX_DESCRIPTOR_BYTES) throw new Error(`${file.name} is over 1 MB: a descriptor is a few kB.`);
  let doc: unknown;
  try {
    doc = JSON.parse(await file.text());
  } catch (error) {
    throw new Error(`${file.name} is not valid JSON (${error instanceof Error ? error.message : 'parse error'}).`, { cause: error });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${file.name} does not hold a descriptor (a JSON object).`);
  return doc as Record<string, unknown>;
}

function formOf(files: File[], descriptor?: string | File, title?: string): FormData {
  const form = new FormData();
  if (descriptor !== undefined) form.append('descriptor', descriptor);
  for (const file of files) form.append('files', file, file.name);
  if (title) form.append('title', title);
  return form;
}

function Actions({ mapping, yaml, busy, onImport }: { mapping: Mapping | null; yaml: File | null; busy: boolean; onImport: () => void }) {
  const json = mapping ? JSON.stringify(writeDescriptor(mapping), null, 2) : null;
  return (
    <div className="form__actions">
      {json !== null && (
        <a className="button" download="descriptor.json" href={`data:application/json;charset=utf-8,${encodeURIComponent(`${json}\n`)}`}>
          Download descriptor
        </a>
      )}
      <button type="button" className="button button--primary" disabled={busy || (json === null && yaml === null)} onClick={onImport}>
        {busy ? 'Uploading…' : 'Import'}
      </button>
    </div>
  );
}

/** What describe left to settle in its draft, and which files it read only in part. */
function DescribeNotes({ notes, samples }: { notes: string[]; samples: SampleInfo[] }) {
  const partial = samples.filter((sample) => !sample.complete);
  if (notes.length === 0 && partial.length === 0) return null;
  return (
    <div className="card" data-testid="describe-notes">
      {notes.length > 0 && (
        <>
          <p>Left to settle in the draft:</p>
          <ul>
            {notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </>
      )}
      {partial.map((sample) => (
        <p key={sample.file} className="muted">
          The counts of {sample.file} are of its first {sample.rows_read} rows; the import reads every row.
        </p>
      ))}
    </div>
  );
}

function MappingEditor({ mapping, picked, setMapping }: { mapping: Mapping; picked: string[]; setMapping: (m: Mapping) => void }) {
  const factors = useApiQuery<FactorCatalog>(factorsPath());
  const onField = (name: string, changes: Partial<FieldDraft>) => {
    const draft = mapping.fields[name];
    if (draft) setMapping({ ...mapping, fields: { ...mapping.fields, [name]: { ...draft, ...changes } } });
  };
  const onResource = (index: number, changes: Partial<ResourceDraft>) => {
    setMapping({ ...mapping, resources: mapping.resources.map((r, at) => (at === index ? { ...r, ...changes } : r)) });
  };
  const hasPace = Object.values(mapping.fields).some((field) => field.role === 'pace');
  return (
    <>
      <ResourcesTable
        mapping={mapping}
        picked={picked}
        edits={{ onResource, onContextNames: (contextNames) => { setMapping({ ...mapping, contextNames }); } }}
      />
      <Field label="Missing-value texts" hint="Besides the empty cell, which is always missing; separate them with commas.">
        {(props) => (
          <input {...props} value={mapping.missingValues} onChange={(event) => { setMapping({ ...mapping, missingValues: event.target.value }); }} />
        )}
      </Field>
      {!hasPace && <GamePaces paces={mapping.gamePaces} onChange={(gamePaces) => { setMapping({ ...mapping, gamePaces }); }} />}
      <h4>Columns</h4>
      <ActionError error={factors.error} prefix="Could not load the factor registry" />
      <ColumnTable mapping={mapping} factors={factors.data?.factors ?? []} onChange={onField} />
    </>
  );
}

export default function DatasetImportPage() {
  const [files, setFiles] = useState<File[]>([]);
  const [descriptorFile, setDescriptorFile] = useState<File | null>(null);
  const [mapping, setMapping] = useState<Mapping | null>(null);
  const [described, setDescribed] = useState<{ result: DescribeResult; given: boolean } | null>(null);
  const [yaml, setYaml] = useState<File | null>(null);
  const [title, setTitle] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [job, setJob] = useState<DatasetJob | null>(null);
  const reading = useAction();
  const importing = useAction();
  const refusal = refusalOf(importing.error);
  const unread = refusalOf(reading.error);

  const restart = () => {
    setMapping(null);
    setDescribed(null);
    setYaml(null);
    setJob(null);
    setProblem(null);
    reading.clearError();
    importing.clearError();
  };

  const read = async (event: SyntheticEvent) => {
    event.preventDefault();
    restart();
    if (files.length === 0) {
      setProblem('Choose the CSV files first.');
      return;
    }
    if (descriptorFile && isYaml(descriptorFile)) {
      setYaml(descriptorFile);
      return;
    }
    let given: Record<string, unknown> | null;
    try {
      given = descriptorFile ? await readDescriptor(descriptorFile) : null;
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
      return;
    }
    const result = await reading.run(() => postForm<DescribeResult>(describePath(), formOf(files)));
    if (!result) return;
    const built = buildMapping(result, given);
    setMapping(built);
    setDescribed({ result, given: given !== null });
    setTitle(typeof built.base.title === 'string' ? built.base.title : '');
  };

  const submit = async () => {
    setJob(null);
    const descriptor = yaml ?? (mapping ? JSON.stringify(writeDescriptor(mapping)) : undefined);
    // 202: a new job; 200: the same submission's job (a retry never imports twice).
    const answer = await importing.run(() => postForm<{ job: DatasetJob }>(datasetImportPath(), formOf(files, descriptor, title.trim())));
    if (answer) setJob(answer.job);
  };

  const picked = files.map((file) => file.name);
  return (
    <>
      <p>
        <Link to="/console">← Studies</Link>
      </p>
      <h2>Import a dataset</h2>
      <p className="muted">
        Ratings collected elsewhere (CSV files) become a new <strong>analysis-only</strong> study: it has results and no
        sessions to run. The descriptor says what each column is (docs: “Importing a QoE dataset”).
      </p>
      <form className="form card form--inline" aria-label="Dataset files" onSubmit={(event) => void read(event)} noValidate>
        <Field label="Data files (CSV)" error={problem ?? undefined}>
          {(props) => (
            <input {...props} type="file" multiple accept=".csv,text/csv" onChange={(event) => { setFiles([...(event.target.files ?? [])]); restart(); }} />
          )}
        </Field>
        <Field label="Descriptor (optional, JSON or YAML)">
          {(props) => (
            <input {...props} type="file" accept=".json,.yaml,.yml,application/json" onChange={(event) => { setDescriptorFile(event.target.files?.[0] ?? null); restart(); }} />
          )}
        </Field>
        <button type="submit" className="button" disabled={reading.busy}>
          {reading.busy ? 'Reading…' : 'Read the columns'}
        </button>
      </form>
      {unread ? (
        <ProblemList heading="The files could not be read:" detail={unread.detail} problems={unread.problems} more={unread.more} />
      ) : (
        <ActionError error={reading.error} prefix="The files could not be read" />
      )}
      {(mapping ?? yaml) && (
        <section aria-labelledby="dataset-mapping" className="mapping-step">
          <h3 id="dataset-mapping">Column mapping</h3>
          {described && <DescribeNotes notes={described.given ? [] : described.result.notes} samples={described.result.files} />}
          {mapping && <MappingEditor mapping={mapping} picked={picked} setMapping={setMapping} />}
          {yaml && <p data-testid="dataset-yaml">The YAML descriptor {yaml.name} is sent as it is; give it as JSON to edit its mapping here.</p>}
          <Field label="Study title" hint="The new study's title (default: the descriptor's title).">
            {(props) => <input {...props} value={title} onChange={(event) => { setTitle(event.target.value); }} />}
          </Field>
          <Actions mapping={mapping} yaml={yaml} busy={importing.busy} onImport={() => void submit()} />
        </section>
      )}
      {refusal ? (
        <ProblemList heading="Import refused:" detail={refusal.detail} problems={refusal.problems} more={refusal.more} />
      ) : (
        <ActionError error={importing.error} prefix="Import refused" />
      )}
      {job && <JobStatus key={job.id} started={job} title={title.trim()} />}
    </>
  );
}
