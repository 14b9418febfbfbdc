"""require_ovs: the root, tool and schema checks shared by the OVS system tests.

Catches a check that lets a missing tool through (the sandbox would then fail obscurely)
or that names the wrong Debian package.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qoelab_testkit import ovs


def _ready(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, missing: str = "") -> None:
    schema = tmp_path / "vswitch.ovsschema"
    schema.write_text("{}")
    monkeypatch.setattr(ovs.os, "geteuid", lambda: 0)
    monkeypatch.setattr(ovs, "OVS_SCHEMA", schema)
    monkeypatch.setattr(ovs, "which", lambda name: None if name == missing else f"/x/{name}")
    monkeypatch.delenv("QOELAB_STRICT", raising=False)


def test_everything_present_passes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _ready(monkeypatch, tmp_path)
    ovs.require_ovs("needs root")


def test_a_missing_tool_skips_naming_its_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _ready(monkeypatch, tmp_path, missing="ovs-ofctl")
    with pytest.raises(pytest.skip.Exception, match=r"ovs-ofctl missing: .*openvswitch-common"):
        ovs.require_ovs("needs root")


def test_no_root_skips_with_the_callers_reason_and_fails_in_strict_mode(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _ready(monkeypatch, tmp_path)
    monkeypatch.setattr(ovs.os, "geteuid", lambda: 1000)
    with pytest.raises(pytest.skip.Exception, match="the lab needs root"):
        ovs.require_ovs("the lab needs root")
    monkeypatch.setenv("QOELAB_STRICT", "1")
    with pytest.raises(pytest.fail.Exception, match="the lab needs root"):
        ovs.require_ovs("the lab needs root")


def test_a_missing_schema_skips(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _ready(monkeypatch, tmp_path)
    monkeypatch.setattr(ovs, "OVS_SCHEMA", tmp_path / "absent.ovsschema")
    with pytest.raises(pytest.skip.Exception, match=r"absent\.ovsschema missing"):
        ovs.require_ovs("needs root")
