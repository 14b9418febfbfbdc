"""Load the QoE policy the service holds paths against: a file or an http(s) URL.

Refused, with a one-line :class:`PolicySourceError`: an unreadable source, not JSON, a
``$schema`` other than ``urn:qoe-lab:schema:qoe-policy:2.0``, a ``policy_version`` other
than ``"2.0"``, a ``kind`` other than ``"qoe-lab-policy"``, a document the published schema
rejects (``validate_policy``), and a policy without a class of the configured application
(``cloud-gaming`` by default). ``check_flow_classes`` refuses flows naming a class the
policy does not have, or one of another application.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qoe_analysis.policy import (
    POLICY_SCHEMA_ID,
    POLICY_VERSION,
    PolicyError,
    validate_policy,
)

POLICY_KIND = "qoe-lab-policy"
MAX_BYTES = 16 << 20


class PolicySourceError(ValueError):
    """The policy cannot be used; the message is one line."""


@dataclass(frozen=True)
class LoadedPolicy:
    """A validated policy document and where it came from."""

    document: dict[str, Any]
    source: str
    application: str

    @property
    def schema(self) -> str:
        return str(self.document["$schema"])

    @property
    def generated_at(self) -> str:
        return str(self.document["provenance"]["generated_at"])

    @property
    def target(self) -> str:
        return str(self.document["target"]["label"])

    def class_(self, class_id: str) -> dict[str, Any]:
        """The class with this id (KeyError when there is none)."""
        for cls in self.document["classes"]:
            if cls["id"] == class_id:
                return dict(cls)
        raise KeyError(class_id)


def _read(source: str, token: str | None, timeout_s: float, base_dir: Path) -> bytes:
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"Accept": "application/json"})
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                data: bytes = response.read(MAX_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise PolicySourceError(f"policy {source}: HTTP {exc.code} {exc.reason}") from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise PolicySourceError(f"policy {source}: cannot fetch: {reason}") from exc
    else:
        path = Path(source.removeprefix("file://"))
        if not path.is_absolute():
            path = base_dir / path
        try:
            with path.open("rb") as f:
                data = f.read(MAX_BYTES + 1)
        except OSError as exc:
            raise PolicySourceError(f"policy {source}: cannot read: {exc.strerror}") from exc
    if len(data) > MAX_BYTES:
        raise PolicySourceError(f"policy {source}: larger than {MAX_BYTES >> 20} MiB")
    return data


def check_policy(document: Any, source: str, application: str) -> LoadedPolicy:
    """Refuse an unknown schema/version/kind, an invalid document or another application."""
    if not isinstance(document, dict):
        raise PolicySourceError(f"policy {source}: not a JSON object")
    for key, expected in (
        ("$schema", POLICY_SCHEMA_ID),
        ("policy_version", POLICY_VERSION),
        ("kind", POLICY_KIND),
    ):
        if document.get(key) != expected:
            raise PolicySourceError(
                f"policy {source}: {key} {document.get(key)!r} is not supported "
                f"(this qoe-steer reads {expected!r})"
            )
    try:
        validate_policy(document)
    except PolicyError as exc:
        raise PolicySourceError(f"policy {source}: {exc}") from exc
    apps = sorted({str(c.get("application")) for c in document["classes"]})
    if application not in apps:
        raise PolicySourceError(
            f"policy {source}: no class of application {application!r} "
            f"(the policy is for {', '.join(apps) or 'no application'})"
        )
    return LoadedPolicy(document=document, source=source, application=application)


def load_policy(
    source: str,
    *,
    application: str = "cloud-gaming",
    token: str | None = None,
    timeout_s: float = 5.0,
    base_dir: Path = Path("."),
) -> LoadedPolicy:
    """Read, parse and check a policy (raises :class:`PolicySourceError`)."""
    data = _read(source, token, timeout_s, base_dir)
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PolicySourceError(f"policy {source}: not JSON: {exc}") from exc
    return check_policy(document, source, application)


def check_flow_classes(policy: LoadedPolicy, flows: Iterable[tuple[str, str]]) -> None:
    """``flows``: (config key, class id) pairs; refuse unknown classes or other applications."""
    known: Mapping[str, Any] = {c["id"]: c for c in policy.document["classes"]}
    for key, class_id in flows:
        if class_id not in known:
            raise PolicySourceError(
                f"{key}: class {class_id!r} is not in the policy ({', '.join(sorted(known))})"
            )
        if known[class_id].get("application") != policy.application:
            raise PolicySourceError(
                f"{key}: class {class_id!r} is of application "
                f"{known[class_id].get('application')!r}, not {policy.application!r}"
            )
