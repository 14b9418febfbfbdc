import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <section className="status status--empty" aria-labelledby="not-found-heading">
      <h2 id="not-found-heading">Page not found</h2>
      <p>
        There is no page at this address. <Link to="/">Go to the study overview</Link>.
      </p>
    </section>
  );
}
