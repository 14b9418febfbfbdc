import { useState } from 'react';
import type { SyntheticEvent } from 'react';

import { fieldErrors, sendJSON } from '../../api';
import { useAction } from '../hooks';
import { ActionError, Field } from '../ui';
import { steeringServicePath, steeringServicesPath } from './steeringTypes';
import type { SteeringService } from './steeringTypes';

/** URLs compare without a trailing slash or a pasted `/v1/status` (the API drops both). */
export function sameStatusUrl(a: string, b: string): boolean {
  const base = (u: string) => u.trim().replace(/\/+$/, '').replace(/\/v1\/status$/, '');
  return base(a) === base(b);
}

const TOKEN_FOR_NEW_URL = "Enter the service's token for the new URL: the stored token is only sent to the URL it was given for.";

/** Register a steering service (no `service`) or edit one; the token is write-only. */
export function SteeringServiceForm({ service, onSaved }: { service?: SteeringService; onSaved: (saved: SteeringService) => void }) {
  const empty = { name: '', status_url: '', token: '', ca_cert: '' };
  const [draft, setDraft] = useState(
    service ? { name: service.name, status_url: service.status_url, token: '', ca_cert: service.ca_cert } : empty,
  );
  const [saved, setSaved] = useState(false);
  const [tokenMissing, setTokenMissing] = useState(false);
  const action = useAction();
  const errors = fieldErrors(action.error);
  const urlChanged = service !== undefined && !sameStatusUrl(draft.status_url, service.status_url);
  const edit = (patch: Partial<typeof draft>) => {
    setDraft({ ...draft, ...patch });
    setSaved(false);
    setTokenMissing(false);
  };
  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (urlChanged && !draft.token) {
      setTokenMissing(true);
      return;
    }
    const body: Record<string, string> = { name: draft.name, status_url: draft.status_url, ca_cert: draft.ca_cert };
    if (draft.token) body.token = draft.token;
    const result = await action.run(() =>
      service
        ? sendJSON<SteeringService>('PATCH', steeringServicePath(service.id), body)
        : sendJSON<SteeringService>('POST', steeringServicesPath(), body),
    );
    if (result) {
      setSaved(true);
      setDraft(service ? { ...draft, token: '' } : empty);
      onSaved(result);
    }
  };
  const tokenHint = !service
    ? 'The daemon’s [status] token (at least 16 characters); never shown again.'
    : urlChanged
      ? 'Required: the URL changed, so enter the token of the service at the new URL.'
      : 'Leave empty to keep the stored token (never shown).';
  return (
    <form
      className="form card form--grid"
      aria-label={service ? `Edit ${service.name}` : 'New steering service'}
      onSubmit={(event) => void submit(event)}
      noValidate
    >
      <Field label="Name" error={errors.name}>
        {(p) => <input {...p} value={draft.name} onChange={(e) => { edit({ name: e.target.value }); }} />}
      </Field>
      <Field label="Status URL" error={errors.status_url} hint="The daemon's [status] listen address, e.g. http://127.0.0.1:8790">
        {(p) => <input {...p} type="url" value={draft.status_url} onChange={(e) => { edit({ status_url: e.target.value }); }} />}
      </Field>
      <Field label="Status token" error={tokenMissing ? TOKEN_FOR_NEW_URL : errors.token} hint={tokenHint}>
        {(p) => (
          <input
            {...p}
            type="password"
            autoComplete="off"
            required={!service || urlChanged}
            value={draft.token}
            onChange={(e) => { edit({ token: e.target.value }); }}
          />
        )}
      </Field>
      <div className="form__wide">
        <Field label="CA certificate (PEM)" error={errors.ca_cert} hint="Only for an https:// status URL with its own certificate. Empty: the system's CAs.">
          {(p) => (
            <textarea
              {...p}
              className="pem"
              rows={3}
              spellCheck={false}
              placeholder="-----BEGIN CERTIFICATE-----"
              value={draft.ca_cert}
              onChange={(e) => { edit({ ca_cert: e.target.value }); }}
            />
          )}
        </Field>
      </div>
      <div className="form__actions">
        <button type="submit" className="button button--primary" disabled={action.busy}>
          {service ? 'Save service' : 'Add service'}
        </button>
        {saved && (
          <span role="status" className="ok-text">
            Saved.
          </span>
        )}
        {errors[''] && <ActionError error={errors['']} />}
      </div>
    </form>
  );
}
