import { useState } from 'react';
import type { ReactNode } from 'react';

import { Field } from './ui';

/**
 * The token rule of a stored endpoint (a station's agent, a steering service): the stored
 * token is only ever sent to the URL it was given for, so a changed URL needs the token
 * again. `stored` is the saved URL (undefined for a new endpoint), `same` compares URLs the
 * way the API normalises them.
 */
export function useEndpointSecret(stored: string | undefined, url: string, token: string, same: (a: string, b: string) => boolean) {
  const [tokenMissing, setTokenMissing] = useState(false);
  const urlChanged = stored !== undefined && !same(url, stored);
  return {
    isNew: stored === undefined,
    urlChanged,
    tokenMissing,
    /** Any edit clears the "token again" message. */
    clearMissing: () => {
      setTokenMissing(false);
    },
    /** False (and the message shown) when the URL changed but no token was typed. */
    maySubmit: () => {
      if (urlChanged && !token) {
        setTokenMissing(true);
        return false;
      }
      return true;
    },
  };
}

export type EndpointSecret = ReturnType<typeof useEndpointSecret>;

/** What differs between the forms: the labels, hints and the name of the thing at the URL. */
export interface EndpointTexts {
  /** Who holds the token, in the messages: "agent", "service". */
  holder: string;
  urlLabel: string;
  urlHint: string;
  tokenLabel: string;
  /** The token hint of a new endpoint. */
  newTokenHint: string;
  caLabel: string;
  caHint: string;
  caRows: number;
}

export interface EndpointValues {
  url: string;
  token: string;
  ca: string;
}

/** The message when the URL changed and the token was left empty. */
export function tokenForNewUrl(holder: string): string {
  return `Enter the ${holder}'s token for the new URL: the stored token is only sent to the URL it was given for.`;
}

function tokenHint(texts: EndpointTexts, secret: EndpointSecret): string {
  if (secret.isNew) return texts.newTokenHint;
  if (secret.urlChanged) return `Required: the URL changed, so enter the token of the ${texts.holder} at the new URL.`;
  return 'Leave empty to keep the stored token (never shown).';
}

/**
 * The URL, the write-only token (required when new or when the URL changed) and the CA
 * certificate (PEM) of an endpoint; `children` are the form's fields that stand between
 * the token and the certificate.
 */
export function EndpointSecretFields({
  texts,
  secret,
  values,
  errors,
  onChange,
  children,
}: {
  texts: EndpointTexts;
  secret: EndpointSecret;
  values: EndpointValues;
  errors: { url?: string | undefined; token?: string | undefined; ca?: string | undefined };
  onChange: (patch: Partial<EndpointValues>) => void;
  children?: ReactNode;
}) {
  return (
    <>
      <Field label={texts.urlLabel} error={errors.url} hint={texts.urlHint}>
        {(p) => <input {...p} type="url" value={values.url} onChange={(e) => { onChange({ url: e.target.value }); }} />}
      </Field>
      <Field label={texts.tokenLabel} error={secret.tokenMissing ? tokenForNewUrl(texts.holder) : errors.token} hint={tokenHint(texts, secret)}>
        {(p) => (
          <input
            {...p}
            type="password"
            autoComplete="off"
            required={secret.isNew || secret.urlChanged}
            value={values.token}
            onChange={(e) => { onChange({ token: e.target.value }); }}
          />
        )}
      </Field>
      {children}
      <div className="form__wide">
        <Field label={texts.caLabel} error={errors.ca} hint={texts.caHint}>
          {(p) => (
            <textarea
              {...p}
              className="pem"
              rows={texts.caRows}
              spellCheck={false}
              placeholder="-----BEGIN CERTIFICATE-----"
              value={values.ca}
              onChange={(e) => { onChange({ ca: e.target.value }); }}
            />
          )}
        </Field>
      </div>
    </>
  );
}
