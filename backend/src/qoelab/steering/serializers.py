"""The steering service as the API shows and takes it.

URL and token rules are the stations' (issue 13), with their helpers: http:// or https://
only, plain HTTP to another machine only with ``QOELAB_AGENT_ALLOW_PLAIN_HTTP``, the token
write-only (≥ 16 characters, as ``qoe-steer`` requires of ``[status] token``) and required
again whenever the URL changes, so a stored token never goes to a new URL.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from qoelab.stations.agent_tls import (
    CertificateInputError,
    fingerprints,
    plain_http_problem,
    validate_ca_pem,
)
from qoelab.steering.models import SteeringService

STATUS_PATH = "/v1/status"
URL_NEEDS_TOKEN = (
    "a new status URL needs the service's token in the same request: the stored token is "
    "only ever sent to the URL it was given for"
)


def normalise_status_url(value: str) -> str:
    """The base URL: without a trailing slash and without a pasted ``/v1/status``."""
    url = value.strip().rstrip("/")
    if url.endswith(STATUS_PATH):
        url = url[: -len(STATUS_PATH)].rstrip("/")
    return url


class SteeringServiceSerializer(serializers.ModelSerializer[SteeringService]):
    token = serializers.CharField(
        write_only=True,
        min_length=16,
        max_length=200,
        help_text="never returned; required with a new status_url",
    )
    ca_cert = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=True,
        help_text="PEM certificate(s) an https:// status URL must present a certificate of; "
        "blank = the system's CAs",
    )
    ca_fingerprints = serializers.SerializerMethodField(help_text="SHA-256 fingerprints of ca_cert")

    class Meta:
        model = SteeringService
        fields = [
            "id",
            "name",
            "status_url",
            "token",
            "ca_cert",
            "ca_fingerprints",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["created_at", "updated_at"]

    def get_ca_fingerprints(self, service: SteeringService) -> list[str]:
        return fingerprints(service.ca_cert)

    def validate_status_url(self, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise serializers.ValidationError("the status URL must start with http:// or https://")
        problem = plain_http_problem(value, settings.QOELAB_AGENT_ALLOW_PLAIN_HTTP)
        if problem:
            raise serializers.ValidationError(problem.replace("agent URL", "status URL"))
        return normalise_status_url(value)

    def validate_ca_cert(self, value: str) -> str:
        try:
            return validate_ca_pem(value)
        except CertificateInputError as exc:
            raise serializers.ValidationError(str(exc)) from None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """A new URL needs its token; names are unique per owner; a CA certificate only
        with https://."""
        attrs = super().validate(attrs)
        instance = self.instance
        if (
            instance is not None
            and "status_url" in attrs
            and attrs["status_url"] != instance.status_url
            and "token" not in attrs
        ):
            raise serializers.ValidationError({"token": [URL_NEEDS_TOKEN]})
        url = attrs.get("status_url", getattr(instance, "status_url", ""))
        ca = attrs.get("ca_cert", getattr(instance, "ca_cert", ""))
        if ca and not str(url).startswith("https://"):
            raise serializers.ValidationError(
                {"ca_cert": ["a CA certificate is only used with an https:// status URL"]}
            )
        owner = self.context["request"].user
        if "name" in attrs:
            same = SteeringService.objects.filter(owner=owner, name=attrs["name"])
            if instance is not None:
                same = same.exclude(pk=instance.pk)
            if same.exists():
                raise serializers.ValidationError(
                    {"name": ["you already have a steering service with this name"]}
                )
        return attrs
