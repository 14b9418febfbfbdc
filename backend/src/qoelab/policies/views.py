"""``GET /api/v1/studies/{id}/policy/``: the study's QoE policy in a controller's format."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from qoelab.core.errors import BadRequest, NotFound
from qoelab.policies.services import (
    FORMATS,
    FlowSelector,
    latest_analysis,
    study_policy,
)
from qoelab.studies.access import IsResearcher, accessible_studies

FILE_SUFFIX = {"json": "json", "faucet": "yaml", "ovs": "sh", "onos": "json"}


class PolicyQuerySerializer(serializers.Serializer[dict[str, object]]):
    reliable_only = serializers.BooleanField(default=False)
    rate_kbps = serializers.FloatField(min_value=1.0, max_value=10_000_000.0, default=3000.0)
    server_ip = serializers.IPAddressField(required=False, protocol="IPv4")
    server_port = serializers.IntegerField(required=False, min_value=1, max_value=65535)
    protocol = serializers.ChoiceField(choices=["udp", "tcp"], default="udp")
    allow_dry_run = serializers.BooleanField(
        default=False,
        help_text=(
            "export a policy learnt mostly (> 50 %) from dry-run ratings (unimpaired play); "
            "without it such a policy is refused with 400, code dry_run"
        ),
    )

    def validate(self, attrs: dict[str, object]) -> dict[str, object]:
        if "server_port" in attrs and "server_ip" not in attrs:
            raise serializers.ValidationError({"server_ip": "server_port needs server_ip."})
        return attrs


COMMON_RESPONSES = {
    (200, "application/json"): OpenApiTypes.OBJECT,
    (200, "text/plain"): OpenApiTypes.STR,
    400: OpenApiResponse(
        description=(
            "bad parameter, an analysis no policy can be built from, or (code dry_run) a "
            "policy learnt mostly from dry-run ratings without allow_dry_run"
        )
    ),
    404: OpenApiResponse(description="no such study (or no access), or unknown format"),
    409: OpenApiResponse(description="no finished analysis for the current version"),
}


def policy_response(request: Request, pk: int, export_format: str) -> HttpResponse | Response:
    """Build the study's policy from its latest finished analysis and render it."""
    study = get_object_or_404(accessible_studies(request.user), pk=pk)
    if export_format not in FORMATS:
        raise NotFound(f"unknown policy format {export_format!r}; one of {', '.join(FORMATS)}")
    query = PolicyQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    params = query.validated_data
    job = latest_analysis(study, reliable_only=params["reliable_only"])
    flow = (
        FlowSelector(params["server_ip"], params.get("server_port"), params["protocol"])
        if "server_ip" in params
        else None
    )
    # Imported here: the policy package pulls in pandas, which URL loading must not pay for.
    from qoe_analysis.policy import MEDIA_TYPES, PolicyError, export_policy

    try:
        policy = study_policy(
            study,
            job,
            stream_kbps=params["rate_kbps"],
            flow=flow,
            allow_dry_run=params["allow_dry_run"],
        )
        text = export_policy(policy, export_format)
    except PolicyError as exc:  # the analysis package's own error (no HTTP status)
        raise BadRequest(str(exc)) from exc
    response = HttpResponse(text, content_type=MEDIA_TYPES[export_format])
    suffix = FILE_SUFFIX.get(export_format, "json")
    response["Content-Disposition"] = (
        f'inline; filename="qoe-policy-study{study.pk}-v{job.study_version}-'
        f'{export_format}.{suffix}"'
    )
    return response


class StudyPolicyView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        operation_id="studies_policy_retrieve",
        parameters=[PolicyQuerySerializer],
        responses=COMMON_RESPONSES,
    )
    def get(self, request: Request, pk: int) -> HttpResponse | Response:
        """The study's QoE policy document (JSON), built from its latest finished analysis.

        ``server_ip``/``server_port``/``protocol`` select the game flow that controller
        configurations match; without them the policy uses a placeholder address.
        """
        return policy_response(request, pk, "json")


class StudyPolicyExportView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        operation_id="studies_policy_export_retrieve",
        parameters=[
            PolicyQuerySerializer,
            OpenApiParameter(
                "export_format",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                enum=list(FORMATS),
                description="json | faucet | ovs | onos | rest_qos | ietf",
            ),
        ],
        responses=COMMON_RESPONSES,
    )
    def get(self, request: Request, pk: int, export_format: str) -> HttpResponse | Response:
        """The study's QoE policy in one controller's format (see docs/policy.md).

        The format is a path segment because DRF reserves the ``?format=`` query parameter
        for its own content negotiation.
        """
        return policy_response(request, pk, export_format)
