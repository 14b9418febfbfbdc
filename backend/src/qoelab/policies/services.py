"""A study's QoE policy, built from its latest finished analysis (docs/policy.md).

The policy is derived, never stored: it is rebuilt from the analysis job's result on every
request, so it always names the job, study version and ratings it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.core.errors import BadRequest, Conflict
from qoelab.studies.models import Study

# The formats of qoe_analysis.policy.FORMATS, repeated so that loading the URL map does not
# import the policy package (and pandas); a test keeps the two in step.
FORMATS = ("json", "faucet", "ovs", "onos", "rest_qos", "ietf")


class NoFinishedAnalysis(Conflict):
    """The study's current version has no succeeded analysis job to build a policy from (409)."""


class DryRunPolicy(BadRequest):
    """The analysis learnt mostly from dry-run ratings (unimpaired play) and the request did
    not allow that (400, ``code`` "dry_run"; ``allow_dry_run=true`` exports it anyway).

    The code lets the Policy tab offer "export anyway" instead of a plain error.
    """

    def body(self) -> dict[str, Any]:
        return {**super().body(), "code": "dry_run"}


@dataclass(frozen=True)
class FlowSelector:
    """The game flow that controller configurations match (the game server's side)."""

    server_ip: str
    server_port: int | None = None
    protocol: str = "udp"

    def as_flows(self) -> dict[str, dict[str, Any]]:
        match: dict[str, Any] = {"server_ip": self.server_ip, "protocol": self.protocol}
        if self.server_port is not None:
            match["server_port"] = self.server_port
        return {"cloud-gaming": match}


def latest_analysis(study: Study, *, reliable_only: bool) -> AnalysisJob:
    """The newest succeeded analysis of the study's current version."""
    job = (
        AnalysisJob.objects.filter(
            study=study,
            study_version=study.version,
            reliable_only=reliable_only,
            state=JobState.SUCCEEDED,
        )
        .order_by("-finished_at", "-id")
        .first()
    )
    if job is None or job.result is None:
        raters = "reliable raters" if reliable_only else "all raters"
        raise NoFinishedAnalysis(
            f"study {study.pk} version {study.version} has no finished analysis ({raters}); "
            f"start one with POST /api/v1/studies/{study.pk}/analysis/ and retry when it "
            "has succeeded"
        )
    return job


def study_policy(
    study: Study,
    job: AnalysisJob,
    *,
    stream_kbps: float,
    flow: FlowSelector | None,
    allow_dry_run: bool = False,
) -> dict[str, Any]:
    """The policy document for ``study`` from ``job``'s analysis result.

    Without ``flow`` the policy carries the documentation-address placeholder selector of
    :func:`qoe_analysis.policy.build_policy`, marked ``placeholder: true``. A policy learnt
    mostly from dry-run ratings is refused (:class:`DryRunPolicy`) unless ``allow_dry_run``;
    any other unusable analysis raises the analysis package's ``PolicyError``.
    """
    from qoe_analysis.policy import PolicyError, build_policy

    provenance = {
        "study_id": study.pk,
        "study_title": study.title,
        "study_version": job.study_version,
        "source": f"QoE Lab analysis job {job.pk} ({job.input_rows} ratings)",
    }

    def build(allowed: bool) -> dict[str, Any]:
        policy: dict[str, Any] = build_policy(
            job.result or {},
            provenance=provenance,
            stream_kbps=stream_kbps,
            flows=flow.as_flows() if flow is not None else None,
            allow_dry_run=allowed,
        )
        return policy

    try:
        return build(allow_dry_run)
    except PolicyError as refusal:
        if allow_dry_run:
            raise
        # The dry-run rule is the one refusal that allow_dry_run lifts: tell it apart by
        # building once more with it allowed (only on a refusal), not by the message's words.
        try:
            build(True)
        except PolicyError:
            raise refusal from None
        raise DryRunPolicy(f"{refusal}; in this API: allow_dry_run=true") from refusal
