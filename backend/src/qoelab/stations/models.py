"""Stations: the test seats of the lab, each bound to one netem agent.

A station is owned by the researcher who created it; only the owner (or staff) may change
it. ``shared`` lets every other researcher see it and run sessions on it, never change it.
A station without owner (created before ownership existed, or by ``ensure_station``
without ``--owner``) may be changed by staff only. The rules live in
:mod:`qoelab.stations.access` (issue 13, "Station takeover").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Station(models.Model):
    name = models.CharField(max_length=80, unique=True)
    agent_url = models.URLField(
        max_length=300, help_text="Base URL of the station's netem agent, e.g. http://10.9.0.2:8787"
    )
    agent_token = models.CharField(
        max_length=200, help_text="Bearer token of the agent (never shown by the API)."
    )
    agent_ca_cert = models.TextField(
        blank=True,
        help_text="PEM certificate(s) the https:// agent's certificate must chain to, e.g. "
        "the agent's self-signed agent.crt; blank = the system's CAs.",
    )
    topology = models.TextField(
        blank=True, help_text="Free-text note on the wiring (the agent reports its own)."
    )
    notes = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="stations",
        help_text="The researcher who may change the station (none: staff only).",
    )
    shared = models.BooleanField(
        default=False,
        help_text="Other researchers may see the station and run sessions on it (never change it).",
    )
    # Health, as last checked.
    last_checked_at = models.DateTimeField(null=True, blank=True)
    last_check_ok = models.BooleanField(null=True, blank=True)
    last_check_message = models.TextField(blank=True)
    agent_capabilities = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
