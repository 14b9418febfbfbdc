"""Which agent backend the ratings of a study were taken under (``Rating.provenance``)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from qoelab.ratings.models import Rating


def ratings_by_backend(study: Any) -> dict[str, int]:
    """Ratings of ``study`` per ``provenance.backend`` ("netlink", "dry-run", "import"…;
    "" = not recorded, e.g. ratings stored before provenance existed), training EXCLUDED:
    training ratings count nowhere in the analysis (``Rating.training``), so the console's
    "N of M ratings were taken on a dry-run agent" counts the same ratings as the results'
    "M ratings" (issue 35, "Counts disagree"). Ratings of sessions still running are counted
    (a dry-run agent is warned of at once); the results count them once their session completes."""
    counts: dict[str, int] = {}
    rows = (
        # quality-control answers (traps, hidden reference) count nowhere in a MOS either
        Rating.objects.filter(session__study=study, training=False, kind="scenario")
        .values("provenance__backend")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in rows:
        backend = row["provenance__backend"]
        key = backend if isinstance(backend, str) else ""
        counts[key] = counts.get(key, 0) + int(row["n"])
    return dict(sorted(counts.items()))
