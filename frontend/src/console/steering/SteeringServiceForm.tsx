import { useState } from 'react';
import type { SyntheticEvent } from 'react';

import { fieldErrors, sendJSON } from '../../api';
import { EndpointSecretFields, useEndpointSecret } from '../EndpointSecretFields';
import type { EndpointTexts } from '../EndpointSecretFields';
import { useAction } from '../hooks';
import { ActionError, Field } from '../ui';
import { steeringServicePath, steeringServicesPath } from './steeringTypes';
import type { SteeringService } from './steeringTypes';

/** URLs compare without a trailing slash or a pasted `/v1/status` (the API drops both). */
export function sameStatusUrl(a: string, b: string): boolean {
  const base = (u: string) => u.trim().replace(/\/+$/, '').replace(/\/v1\/status$/, '');
  return base(a) === base(b);
}

const SERVICE_TEXTS: EndpointTexts = {
  holder: 'service',
  urlLabel: 'Status URL',
  urlHint: "The daemon's [status] listen address, e.g. http://127.0.0.1:8790",
  tokenLabel: 'Status token',
  newTokenHint: 'The daemon’s [status] token (at least 16 characters); never shown again.',
  caLabel: 'CA certificate (PEM)',
  caHint: "Only for an https:// status URL with its own certificate. Empty: the system's CAs.",
  caRows: 3,
};

/** Register a steering service (no `service`) or edit one; the token is write-only. */
export function SteeringServiceForm({ service, onSaved }: { service?: SteeringService; onSaved: (saved: SteeringService) => void }) {
  const empty = { name: '', status_url: '', token: '', ca_cert: '' };
  const [draft, setDraft] = useState(
    service ? { name: service.name, status_url: service.status_url, token: '', ca_cert: service.ca_cert } : empty,
  );
  const [saved, setSaved] = useState(false);
  const secret = useEndpointSecret(service?.status_url, draft.status_url, draft.token, sameStatusUrl);
  const action = useAction();
  const errors = fieldErrors(action.error);
  const edit = (patch: Partial<typeof draft>) => {
    setDraft({ ...draft, ...patch });
    setSaved(false);
    secret.clearMissing();
  };
  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (!secret.maySubmit()) return;
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
      <EndpointSecretFields
        texts={SERVICE_TEXTS}
        secret={secret}
        values={{ url: draft.status_url, token: draft.token, ca: draft.ca_cert }}
        errors={{ url: errors.status_url, token: errors.token, ca: errors.ca_cert }}
        onChange={(patch) => {
          edit({ status_url: patch.url ?? draft.status_url, token: patch.token ?? draft.token, ca_cert: patch.ca ?? draft.ca_cert });
        }}
      />
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
