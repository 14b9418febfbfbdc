"""Stations: the test seats of the lab, each bound to one netem agent."""

from __future__ import annotations

from django.db import models


class Station(models.Model):
    name = models.CharField(max_length=80, unique=True)
    agent_url = models.URLField(
        max_length=300, help_text="Base URL of the station's netem agent, e.g. http://10.9.0.2:8787"
    )
    agent_token = models.CharField(
        max_length=200, help_text="Bearer token of the agent (never shown by the API)."
    )
    topology = models.TextField(
        blank=True, help_text="Free-text note on the wiring (the agent reports its own)."
    )
    notes = models.TextField(blank=True)
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
