/** An error boundary per figure: a figure that throws shows its error; the page stays. */
import { Component } from 'react';
import type { ErrorInfo, ReactNode } from 'react';

interface Props {
  /** The figure's id (as its `data-chart`) and title, for the fallback card. */
  id: string;
  title: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

export class FigureBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    // The browser console keeps the stack for a bug report; the card says it in words.
    console.error(`figure ${this.props.id} failed`, error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <figure className="figure card" data-chart={this.props.id} data-points={0} data-state="error" aria-label={this.props.title}>
        <h3 className="figure__title">{this.props.title}</h3>
        <p className="status status--error" role="alert">
          This figure could not be drawn ({error.message}). The other figures are not affected.
        </p>
        <button
          type="button"
          className="button"
          onClick={() => {
            this.setState({ error: null });
          }}
        >
          Try again
        </button>
      </figure>
    );
  }
}
