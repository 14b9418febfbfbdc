"""axe-core in the page: inject the pinned copy from frontend/node_modules and run it."""

from __future__ import annotations

from typing import Any

from live_server import REPO

AXE = REPO / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = {"serious", "critical"}
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


def axe_violations(page: Any, *, impacts: set[str] = BLOCKING) -> list[dict[str, Any]]:
    """The axe violations of the page at ``impacts`` (WCAG 2.x A/AA and best practices)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol, not as an inline <script> tag: the app's
        # Content-Security-Policy (script-src 'self') refuses inline scripts, rightly.
        page.evaluate(AXE.read_text(encoding="utf-8"))
    result: dict[str, Any] = page.evaluate(
        """async (tags) => await axe.run(document, {
            runOnly: {type: 'tag', values: tags},
            resultTypes: ['violations'],
        })""",
        TAGS,
    )
    return [v for v in result["violations"] if v.get("impact") in impacts]


def describe(violations: list[dict[str, Any]]) -> str:
    return "; ".join(
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + ", ".join(str(n.get("target")) for n in v.get("nodes", [])[:3])
        for v in violations
    )


def assert_accessible(page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, f"axe on {where}: {describe(violations)}"
