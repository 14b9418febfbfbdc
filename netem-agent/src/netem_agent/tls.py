"""HTTPS for the agent's API: the server's TLS context and a self-signed certificate.

Issue 13: the bearer token must not cross the lab network in clear. The agent serves
TLS 1.2 or newer with the certificate and key of its configuration; ``netem-agent
make-cert`` makes a self-signed pair for the agent's address(es) with the ``openssl``
binary (the ``cryptography`` package is not a dependency of the project), and QoE Lab
trusts exactly that certificate (the station's "agent CA certificate").
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
import shutil
import ssl
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from netem_agent.config import ConfigError

CERT_NAME = "agent.crt"
KEY_NAME = "agent.key"
DEFAULT_DAYS = 825
_PEM_CERT = re.compile(
    r"-----BEGIN CERTIFICATE-----\s+([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----"
)


def server_context(cert_file: Path, key_file: Path) -> ssl.SSLContext:
    """A server-side context: TLS 1.2 at least, the given certificate (chain) and key."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(certfile=str(cert_file), keyfile=str(key_file))
    except FileNotFoundError as e:
        raise ConfigError(f"TLS: {e.filename}: no such file") from e
    except PermissionError as e:
        raise ConfigError(f"TLS: {e.filename}: not readable by the agent") from e
    except (ssl.SSLError, OSError) as e:
        raise ConfigError(
            f"TLS: cannot load certificate {cert_file} with key {key_file} ({e}); "
            "both must be PEM and the key must belong to the certificate"
        ) from e
    return context


def fingerprint(pem: str) -> str:
    """SHA-256 fingerprint of the first certificate in ``pem``, as ``AB:CD:...``."""
    match = _PEM_CERT.search(pem)
    if match is None:
        raise ConfigError("no PEM certificate found")
    der = ssl.PEM_cert_to_DER_cert(match.group(0))
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def subject_alt_names(names: list[str]) -> list[str]:
    """``IP:`` or ``DNS:`` entries for the addresses and host names the agent is reached by."""
    if not names:
        raise ConfigError("give at least one --name (the address or host name in the agent URL)")
    entries = []
    for name in names:
        name = name.strip().strip("[]")
        try:
            entries.append(f"IP:{ipaddress.ip_address(name)}")
            continue
        except ValueError:
            pass
        if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?", name):
            raise ConfigError(f"--name {name!r} is neither an IP address nor a host name")
        entries.append(f"DNS:{name}")
    return entries


def make_self_signed(
    out_dir: Path, names: list[str], *, days: int = DEFAULT_DAYS, force: bool = False
) -> dict[str, Any]:
    """Write ``agent.crt`` and ``agent.key`` (mode 0600) in ``out_dir``: a self-signed
    ECDSA P-256 certificate valid for ``names``, made by the ``openssl`` binary."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise ConfigError("the openssl binary is needed (Debian/Ubuntu: apt install openssl)")
    if not 1 <= days <= 3650:
        raise ConfigError("--days must be between 1 and 3650")
    san = subject_alt_names(names)
    cert, key = out_dir / CERT_NAME, out_dir / KEY_NAME
    if not force and (cert.exists() or key.exists()):
        raise ConfigError(f"{cert} or {key} exists; give --force to replace them")
    out_dir.mkdir(parents=True, exist_ok=True)
    # Written beside the targets, then renamed: never a certificate without its key.
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".make-cert-") as tmp:
        tmp_cert, tmp_key = Path(tmp) / CERT_NAME, Path(tmp) / KEY_NAME
        command = [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-sha256",
            "-nodes",
            "-days",
            str(days),
            "-subj",
            f"/CN={names[0].strip().strip('[]')}/O=QoE Lab netem agent",
            "-addext",
            "subjectAltName=" + ",".join(san),
            "-addext",
            "basicConstraints=critical,CA:FALSE",
            "-addext",
            "keyUsage=critical,digitalSignature",
            "-addext",
            "extendedKeyUsage=serverAuth",
            "-keyout",
            str(tmp_key),
            "-out",
            str(tmp_cert),
        ]
        old_umask = os.umask(0o077)
        try:
            result = subprocess.run(command, capture_output=True, text=True, check=False)
        finally:
            os.umask(old_umask)
        if result.returncode != 0:
            raise ConfigError(f"openssl failed: {result.stderr.strip()}")
        tmp_key.chmod(0o600)
        tmp_cert.chmod(0o644)
        os.replace(tmp_key, key)
        os.replace(tmp_cert, cert)
    pem = cert.read_text("ascii")
    return {
        "cert_file": str(cert),
        "key_file": str(key),
        "subject_alt_names": san,
        "days": days,
        "sha256_fingerprint": fingerprint(pem),
        "made_with": "openssl " + _openssl_version(openssl),
    }


def _openssl_version(openssl: str) -> str:
    result = subprocess.run([openssl, "version"], capture_output=True, text=True, check=False)
    parts = result.stdout.split()
    return parts[1] if len(parts) > 1 else "?"
