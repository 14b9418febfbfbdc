"""Who may do what with a study: per-study ownership.

A *researcher* is any signed-in, active Django user (``POST /api/v1/auth/login/``, or HTTP
basic auth for scripts); staff status is not needed. Researchers share the lab's stations
and may create studies (they become the owner).

* A study's *design* (games, scenarios, settings) is readable by anyone — the overview
  page shows it without a login, as before.
* Everything else — changing the design, participants, sessions, ratings, exports,
  imports and analysis jobs — needs a logged-in researcher who owns the study or is one
  of its members. Superusers see every study; a study without owner (loaded by
  ``load_study`` without ``--owner``) is open to every staff user.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from qoelab.studies.analysis_only import check_object_write
from qoelab.studies.models import Study


def accessible_studies(user: Any) -> QuerySet[Study]:
    if user is None or not user.is_authenticated:
        return Study.objects.none()
    if user.is_superuser:
        return Study.objects.all()
    condition = Q(owner=user) | Q(members=user)
    if user.is_staff:
        condition |= Q(owner__isnull=True)
    return Study.objects.filter(condition).distinct()


def can_access(user: Any, study: Study) -> bool:
    return accessible_studies(user).filter(pk=study.pk).exists()


class IsResearcher(BasePermission):
    """Any signed-in user account (see the module docstring: staff status is not needed)."""

    message = "Sign in as a researcher (a QoE Lab user account) to use this endpoint."

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated)


class StudyDesignPermission(BasePermission):
    """Reading a study's design is public; changing it needs access to the study, and the
    design of an analysis-only study is not changed at all (409,
    :mod:`qoelab.studies.analysis_only`)."""

    message = "Only the study's owner or members may change it."

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS and getattr(view, "action", None) in {
            "list",
            "retrieve",
        }:
            return True
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        if request.method in SAFE_METHODS and getattr(view, "action", None) == "retrieve":
            return True
        study = obj if isinstance(obj, Study) else obj.study
        if not can_access(request.user, study):
            return False
        if request.method not in SAFE_METHODS:
            check_object_write(obj, getattr(view, "action", None))
        return True
