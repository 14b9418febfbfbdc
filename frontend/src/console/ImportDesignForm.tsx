/**
 * Imports a study design from a JSON file (a `qoelab.study/v1` document, as
 * fixtures/studies/*.json) and opens the new study. The file field is labelled "Study
 * design (JSON file)", the button "Import design"; problems appear as an alert in plain words.
 */
import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { useNavigate } from 'react-router';

import { apiKey, ApiError, flattenErrors, importDesignPath, sendJSON, studiesPath } from '../api';
import type { StudyDetail } from '../api';
import { useAction } from './hooks';
import { Field } from './ui';

/** The largest design file read (a design is a few kB; a bigger file is not one). */
const MAX_BYTES = 1_000_000;

/** The document in a file, or why it is not a study design. */
export async function readDesignFile(file: File): Promise<unknown> {
  if (file.size > MAX_BYTES) throw new Error(`${file.name} is ${Math.round(file.size / 1000)} kB; a study design is at most 1 MB.`);
  const text = await file.text();
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file.name} is not valid JSON (${error instanceof Error ? error.message : 'parse error'}).`, { cause: error });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${file.name} does not hold a study design (a JSON object).`);
  const format = (doc as Record<string, unknown>).format;
  if (format !== 'qoelab.study/v1') {
    throw new Error(`${file.name} is not a study design: its "format" is ${JSON.stringify(format ?? null)}, expected "qoelab.study/v1".`);
  }
  return doc;
}

/** An import failure in words: the server's field errors as "where: what", else its message. */
export function importProblem(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = Object.entries(flattenErrors(error.body)).map(([key, message]) => (key ? `${key}: ${message}` : message));
    if (fields.length > 0) return `The design was not imported — ${fields.join('; ')}`;
    return `The design was not imported — ${error.detail ?? error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function ImportDesignForm() {
  const navigate = useNavigate();
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const action = useAction();

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setProblem(null);
    if (!file) {
      setProblem('Choose a JSON file first.');
      return;
    }
    let doc: unknown;
    try {
      doc = await readDesignFile(file);
    } catch (error) {
      setProblem(importProblem(error));
      return;
    }
    const study = await action.run(() => sendJSON<StudyDetail>('POST', importDesignPath(), doc), [apiKey(studiesPath())]);
    if (study) void navigate(`/console/studies/${study.id}`);
  };
  const message = problem ?? (action.error ? importProblem(action.error) : null);

  return (
    <section aria-labelledby="import-design">
      <h3 id="import-design">Import a study design</h3>
      <form className="form card form--inline" aria-labelledby="import-design" onSubmit={(e) => void submit(e)} noValidate>
        <Field label="Study design (JSON file)" error={message ?? undefined} hint='A "qoelab.study/v1" document: games, scenarios, questionnaire, settings.'>
          {(props) => (
            <input
              {...props}
              type="file"
              accept="application/json,.json"
              onChange={(e) => {
                setFile(e.target.files?.[0] ?? null);
                setProblem(null);
                action.clearError();
              }}
            />
          )}
        </Field>
        <button type="submit" className="button" disabled={action.busy}>
          Import design
        </button>
      </form>
    </section>
  );
}
