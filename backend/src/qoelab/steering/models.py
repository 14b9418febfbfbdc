"""Steering services: running ``qoe-steer`` daemons whose live state the console shows.

A service belongs to the researcher who registered it; nobody else sees it (404). Its
bearer token is write-only and is only ever sent to the status URL it was entered with
(the stations' rule, issue 13; :mod:`qoelab.steering.serializers`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class SteeringService(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="steering_services"
    )
    name = models.CharField(max_length=80)
    status_url = models.URLField(
        max_length=300,
        help_text="Base URL of the daemon's status listener ([status] listen), e.g. "
        "http://127.0.0.1:8790; the console reads <status_url>/v1/status.",
    )
    token = models.CharField(
        max_length=200, help_text="Bearer token of the status listener (never shown by the API)."
    )
    ca_cert = models.TextField(
        blank=True,
        help_text="PEM certificate(s) an https:// status URL must chain to; blank = the "
        "system's CAs.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="steering_unique_name_per_owner")
        ]

    def __str__(self) -> str:
        return self.name
