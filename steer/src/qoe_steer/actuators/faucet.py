"""The Faucet actuator: rewrite an ACL rule's output port, SIGHUP Faucet, read the hash back.

Faucet measures no path and takes no API calls: its configuration file is the interface.
``move`` finds, in ACL ``acl_name`` of ``faucet.yaml``, the one rule whose match fields equal
the flow's (OXM names; ``dl_type``/``nw_proto`` read as ``eth_type``/``ip_proto``), sets its
``actions: {output: {port: P}}``, writes the file atomically (temp file + ``os.replace``)
and sends SIGHUP. Faucet then publishes ``faucet_config_hash_info{hashes="…"}`` on its
Prometheus endpoint, the SHA-256 of each loaded file's text (faucet/config_parser_util.py,
``config_file_hash``); ``confirm`` is true once that hash is the hash of the file we wrote
and — when a bridge is given — ``ovs-ofctl dump-flows`` shows the flow's rule to ``P``.
Rewriting drops the file's comments (PyYAML does not keep them).
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from qoe_steer.actuators.base import ActuatorError
from qoe_steer.actuators.flowmatch import ovs_match, oxm_match
from qoe_steer.actuators.ovs import one_line
from qoe_steer.model import FlowSpec, PathSpec

if TYPE_CHECKING:
    from qoe_steer.config_values import ActuatorConfig

ALIASES = {"dl_type": "eth_type", "nw_proto": "ip_proto"}
_HASH_INFO = re.compile(r"^faucet_config_hash_info\{(?P<labels>[^}]*)\}", re.MULTILINE)
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
_OUTPUT = re.compile(r"output:(\d+)")


def _port_value(port: str) -> int | str:
    return int(port) if port.isdigit() else port


class FaucetActuator:
    """Steers flows by editing one Faucet ACL (see the module docstring)."""

    name = "faucet"

    def __init__(
        self,
        config_path: str | Path,
        acl_name: str,
        prometheus_url: str,
        *,
        pid: int | None = None,
        pid_file: str | Path | None = None,
        bridge: str | None = None,
        ofctl_env: Mapping[str, str] | None = None,
        deadline_s: float = 3.0,
        retries: int = 2,
        timeout_s: float = 2.0,
    ) -> None:
        if (pid is None) == (pid_file is None):
            raise ActuatorError("faucet: give exactly one of pid, pid_file")
        self.config_path = Path(config_path)
        self.acl_name = acl_name
        self.prometheus_url = prometheus_url
        self.pid = pid
        self.pid_file = Path(pid_file) if pid_file is not None else None
        self.bridge = bridge
        self.ofctl_env = dict(ofctl_env) if ofctl_env is not None else None
        self.deadline_s = deadline_s
        self.retries = retries
        self.timeout_s = timeout_s
        self.written_hash: str | None = None

    def _load(self) -> dict[str, Any]:
        try:
            text = self.config_path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ActuatorError(f"faucet: cannot read {self.config_path}: {exc.strerror}") from None
        try:
            doc: Any = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ActuatorError(f"faucet: {self.config_path}: {one_line(str(exc))}") from None
        acls = doc.get("acls") if isinstance(doc, dict) else None
        if not isinstance(acls, dict) or self.acl_name not in acls:
            raise ActuatorError(f"faucet: {self.config_path} has no ACL {self.acl_name!r}")
        if not isinstance(acls[self.acl_name], list):
            raise ActuatorError(f"faucet: ACL {self.acl_name!r} is not a list of rules")
        loaded: dict[str, Any] = doc
        return loaded

    def _rule(self, doc: dict[str, Any], flow: FlowSpec) -> dict[str, Any]:
        wanted = oxm_match(flow.match)
        found = []
        for entry in doc["acls"][self.acl_name]:
            rule = entry.get("rule", {}) if isinstance(entry, dict) else {}
            fields = {ALIASES.get(k, k): v for k, v in rule.items() if k != "actions"}
            if fields == wanted:
                found.append(rule)
        if len(found) != 1:
            raise ActuatorError(
                f"faucet: ACL {self.acl_name!r} has {len(found)} rules matching flow "
                f"{flow.id} ({', '.join(f'{k}={v}' for k, v in wanted.items())}); need one"
            )
        return found[0]

    def _faucet_pid(self) -> int:
        pid = self.pid
        if self.pid_file is not None:
            try:
                pid = int(self.pid_file.read_text().strip())
            except (OSError, ValueError):
                raise ActuatorError(f"faucet: no usable pid in {self.pid_file}") from None
        assert pid is not None
        return pid

    def check(self) -> None:
        """The config has the ACL, Faucet's process exists and its Prometheus answers."""
        self._load()
        self._alive()
        self._hashes()

    def _alive(self) -> int:
        pid = self._faucet_pid()
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            raise ActuatorError(f"faucet: process {pid} is not running") from None
        return pid

    def move(self, flow: FlowSpec, path: PathSpec) -> None:
        """Rewrite the rule's output (only while Faucet runs: a dead Faucet's file is left
        as it was), then SIGHUP."""
        pid = self._alive()
        doc = self._load()
        rule = self._rule(doc, flow)
        actions = rule.setdefault("actions", {})
        actions["output"] = {"port": _port_value(path.port)}
        actions.pop("allow", None)
        text = yaml.safe_dump(doc, sort_keys=False)
        folder = self.config_path.parent
        fd, tmp = tempfile.mkstemp(prefix=".steer-", suffix=".yaml", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(tmp, self.config_path.stat().st_mode & 0o777)
            os.replace(tmp, self.config_path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise ActuatorError(f"faucet: cannot write {self.config_path}: {exc}") from None
        self.written_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
        try:
            os.kill(pid, signal.SIGHUP)
        except ProcessLookupError:
            raise ActuatorError(f"faucet: process {pid} is not running") from None

    def _hashes(self) -> list[str]:
        """The hashes of Faucet's last good config, from its Prometheus endpoint."""
        try:
            with urllib.request.urlopen(self.prometheus_url, timeout=self.timeout_s) as answer:
                body = answer.read().decode("utf-8", "replace")
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ActuatorError(f"faucet: Prometheus {self.prometheus_url}: {reason}") from None
        match = _HASH_INFO.search(body)
        if match is None:
            raise ActuatorError(f"faucet: {self.prometheus_url} has no faucet_config_hash_info")
        labels = dict(_LABEL.findall(match.group("labels")))
        if labels.get("error"):
            raise ActuatorError(f"faucet rejected its config: {one_line(labels['error'])}")
        return [h for h in labels.get("hashes", "").split(",") if h]

    def _flow_outputs(self, flow: FlowSpec) -> set[str]:
        argv = ["ovs-ofctl", "-O", "OpenFlow13", "--no-names", "dump-flows", str(self.bridge),
                ovs_match(flow.match)]  # fmt: skip
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, env=self.ofctl_env, timeout=self.timeout_s
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ActuatorError(f"faucet: dump-flows {self.bridge}: {exc}") from None
        if done.returncode != 0:
            raise ActuatorError(f"faucet: dump-flows {self.bridge}: {one_line(done.stderr)}")
        return set(_OUTPUT.findall(done.stdout))

    def confirm(self, flow: FlowSpec, path: PathSpec) -> bool:
        if self.written_hash is None or self.written_hash not in self._hashes():
            return False
        if self.bridge is None:
            return True
        return self._flow_outputs(flow) == {path.port}

    def current(self, flow: FlowSpec) -> str | None:
        """The output port the flow's ACL rule names in the file (what Faucet is told)."""
        output = self._rule(self._load(), flow).get("actions", {}).get("output")
        port = output.get("port") if isinstance(output, dict) else None
        return None if port is None else str(port)


_OPTIONS = {"config", "acl", "prometheus_url", "pid", "pid_file", "bridge", "ovs_rundir",
            "timeout_s"}  # fmt: skip


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` (faucet.yaml), ``acl``, ``prometheus_url``, exactly one of ``pid_file``/
    ``pid``; optional ``bridge`` (+ ``ovs_rundir``) for the flow-table read-back."""
    from qoe_steer.config_values import ConfigError, integer, number, text

    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ConfigError(f"actuator.{unknown[0]}: unknown key for kind 'faucet'")
    out: dict[str, Any] = {
        "config": text(options, "config", "actuator"),
        "acl": text(options, "acl", "actuator"),
        "prometheus_url": text(options, "prometheus_url", "actuator"),
        "timeout_s": number(options, "timeout_s", "actuator", 2.0, 0.1, 60.0),
    }
    if not out["prometheus_url"].startswith(("http://", "https://")):
        raise ConfigError(f"actuator.prometheus_url: {out['prometheus_url']!r} is not http(s)")
    if ("pid" in options) == ("pid_file" in options):
        raise ConfigError("actuator.pid_file: give exactly one of pid_file, pid")
    if "pid" in options:
        out["pid"] = integer(options, "pid", "actuator", None, 1, 2**22)
    else:
        out["pid_file"] = text(options, "pid_file", "actuator")
    for key in ("bridge", "ovs_rundir"):
        if key in options:
            out[key] = text(options, key, "actuator")
    return out


def create(
    config: ActuatorConfig, paths: Sequence[PathSpec], flows: Sequence[FlowSpec]
) -> FaucetActuator:
    """The Faucet actuator; refuses (ActuatorError, one line) a config file that cannot be
    read, has no such ACL, or lacks exactly one rule per flow."""
    o = config.options
    env = {**os.environ, "OVS_RUNDIR": str(o["ovs_rundir"])} if "ovs_rundir" in o else None
    actuator = FaucetActuator(
        str(o["config"]), str(o["acl"]), str(o["prometheus_url"]),
        pid=o.get("pid"), pid_file=o.get("pid_file"), bridge=o.get("bridge"), ofctl_env=env,
        deadline_s=config.deadline_s, retries=config.retries,
        timeout_s=float(o.get("timeout_s", 2.0)),
    )  # fmt: skip
    doc = actuator._load()
    for flow in flows:
        actuator._rule(doc, flow)
    for path in paths:
        if not path.port.isdigit():
            raise ActuatorError(f"path {path.id}: port {path.port!r} must be a Faucet port number")
    return actuator
