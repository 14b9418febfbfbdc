import type { ReactNode } from 'react';

interface LoadingProps {
  children: ReactNode;
}

/** Polite live region shown while data loads. */
export function Loading({ children }: LoadingProps) {
  return (
    <p className="status status--loading" role="status" aria-live="polite">
      {children}
    </p>
  );
}

interface ErrorMessageProps {
  title: string;
  error: Error;
  onRetry?: () => void;
}

/** Error panel: "<title>: <error message>" with an optional retry button. */
export function ErrorMessage({ title, error, onRetry }: ErrorMessageProps) {
  return (
    <div className="status status--error" role="alert">
      <p>
        {title}: {error.message}
      </p>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

interface EmptyStateProps {
  children: ReactNode;
}

export function EmptyState({ children }: EmptyStateProps) {
  return <div className="status status--empty">{children}</div>;
}
