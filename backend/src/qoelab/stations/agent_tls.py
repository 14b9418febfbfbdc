"""TLS towards a station's netem agent (issue 13: the bearer token never in clear).

* :func:`validate_ca_pem` — the station's ``agent_ca_cert``: PEM certificate(s) only.
* :func:`ca_bundle_path` — that text as a file for ``requests``' ``verify=`` (it takes a
  path): content-addressed under ``QOELAB_DATA_DIR/agent-ca/``, written atomically once.
* :func:`tls_failure_message` — a researcher-readable reason for a failed handshake.
* :func:`plain_http_problem` — http:// to a non-loopback host, refused unless
  ``QOELAB_AGENT_ALLOW_PLAIN_HTTP`` (default: allowed in development, refused in production).
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
import ssl
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

MAX_PEM_CHARS = 64 * 1024
_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.DOTALL)
# OpenSSL's X509_V_ERR_HOSTNAME_MISMATCH and X509_V_ERR_IP_ADDRESS_MISMATCH.
_NAME_MISMATCH_CODES = {62, 64}


class CertificateInputError(ValueError):
    """The pasted text is not a usable set of PEM certificates."""


def pem_blocks(text: str) -> list[tuple[str, str]]:
    """``(label, full block)`` for every PEM block in ``text``."""
    return [(m.group(1), m.group(0)) for m in _PEM_BLOCK.finditer(text)]


def validate_ca_pem(text: str) -> str:
    """The certificates of ``text``, normalised (one block per line group); blank stays
    blank. Raises :class:`CertificateInputError` for anything but PEM certificates."""
    text = text.strip()
    if not text:
        return ""
    if len(text) > MAX_PEM_CHARS:
        raise CertificateInputError(f"at most {MAX_PEM_CHARS} characters")
    blocks = pem_blocks(text)
    labels = {label for label, _ in blocks}
    if any("PRIVATE KEY" in label for label in labels):
        raise CertificateInputError(
            "this is a private key: paste the agent's certificate (agent.crt), never its key"
        )
    if not blocks or labels != {"CERTIFICATE"}:
        raise CertificateInputError(
            "expected one or more PEM certificates (-----BEGIN CERTIFICATE----- ...)"
        )
    leftover = _PEM_BLOCK.sub("", text).strip()
    if leftover:
        raise CertificateInputError("text outside the PEM certificate blocks")
    pem = "\n".join(block.strip() for _, block in blocks) + "\n"
    try:
        ssl.create_default_context().load_verify_locations(cadata=pem)
    except (ssl.SSLError, ValueError) as exc:
        raise CertificateInputError(f"not a valid certificate ({exc})") from None
    return pem


def fingerprints(pem: str) -> list[str]:
    """SHA-256 fingerprints (``AB:CD:...``) of the certificates in ``pem``, as printed by
    ``netem-agent make-cert`` and ``openssl x509 -fingerprint -sha256``."""
    out = []
    for label, block in pem_blocks(pem):
        if label != "CERTIFICATE":
            continue
        try:
            digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(block)).hexdigest().upper()
        except ValueError:
            continue
        out.append(":".join(digest[i : i + 2] for i in range(0, len(digest), 2)))
    return out


def ca_bundle_path(pem: str, data_dir: Path) -> Path:
    """A file holding ``pem``, named after its SHA-256 (one per distinct text, so a changed
    certificate is a new file and a stale one is never read)."""
    data = pem.encode("ascii", errors="replace")
    directory = data_dir / "agent-ca"
    path = directory / f"{hashlib.sha256(data).hexdigest()}.pem"
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        current = None
    # Read back, not just looked for: a damaged or replaced file is never trusted.
    if current != data:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".pem")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return path


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def plain_http_problem(url: str, allowed: bool) -> str | None:
    """Why the token must not be sent to ``url`` over plain HTTP, or None."""
    parts = urlsplit(url)
    if parts.scheme != "http" or allowed or is_loopback_host(parts.hostname):
        return None
    return (
        f"the agent URL {url} is plain HTTP to another machine: the bearer token would cross "
        "the network in clear. Use https:// with the agent's certificate (docs/agent.md, "
        "'Transport security'), or set QOELAB_AGENT_ALLOW_PLAIN_HTTP=1 for an isolated cable"
    )


def tls_failure_message(base_url: str, exc: BaseException) -> str:
    """A reason for a failed TLS handshake with the agent at ``base_url``."""
    cause: BaseException | None = exc
    seen = 0
    while cause is not None and seen < 10:
        if isinstance(cause, ssl.SSLCertVerificationError):
            detail = cause.verify_message or str(cause)
            if cause.verify_code in _NAME_MISMATCH_CODES:
                return (
                    f"TLS: hostname mismatch: the agent's certificate at {base_url} is not "
                    f"valid for this host ({detail}); make it with "
                    "`netem-agent make-cert --name <host of the agent URL>`"
                )
            return (
                f"TLS: the agent's certificate at {base_url} is not trusted ({detail}); paste "
                "the agent's certificate into the station's 'Agent CA certificate'"
            )
        nxt = cause.__cause__ or cause.__context__
        if nxt is None and cause.args and isinstance(cause.args[0], BaseException):
            nxt = cause.args[0]
        cause = nxt
        seen += 1
    return (
        f"TLS handshake with the agent at {base_url} failed ({exc.__class__.__name__}: "
        f"{str(exc)[-200:]}); does the agent serve HTTPS on that port (certificate "
        "configured)?"
    )
