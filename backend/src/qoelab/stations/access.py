"""Who may see, use and change a station (issue 13, "Station takeover").

* *See and use* (list, retrieve, run sessions on it): its owner, every researcher when
  it is ``shared``, and staff (all stations).
* *Change* (PATCH/PUT/DELETE, check, apply-baseline): its owner or staff; a station
  without owner by staff only. Checking is a change: it sends the station's token to the
  agent and stores the answer.
* Nothing changes while a session is active on the station (409): the session's
  impairment and lease depend on the agent it talks to.

A researcher who may not see a station gets 404 for it (its existence is not revealed);
one who may see but not change it gets 403.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from rest_framework.exceptions import PermissionDenied

from qoelab.core.errors import Conflict
from qoelab.runs.models import Session
from qoelab.runs.state_machine import ACTIVE_STATES
from qoelab.stations.models import Station


class StationBusy(Conflict):
    """The station is held by a session; ``str()`` says which one (409)."""


def is_staff(user: Any) -> bool:
    return bool(user is not None and (user.is_staff or user.is_superuser))


def visible_stations(user: Any) -> QuerySet[Station]:
    """The stations ``user`` may see and run sessions on."""
    if user is None or not user.is_authenticated:
        return Station.objects.none()
    if is_staff(user):
        return Station.objects.all()
    return Station.objects.filter(Q(owner=user) | Q(shared=True))


def may_use(user: Any, station: Station) -> bool:
    """May ``user`` run sessions on ``station``?"""
    return visible_stations(user).filter(pk=station.pk).exists()


def may_change(user: Any, station: Station) -> bool:
    """Owner or staff; a station without owner: staff only."""
    if user is None or not user.is_authenticated:
        return False
    if is_staff(user):
        return True
    return station.owner_id is not None and station.owner_id == user.pk


def ensure_may_change(user: Any, station: Station) -> None:
    """Raise 403 unless ``user`` may change ``station``."""
    if not may_change(user, station):
        who = "staff" if station.owner_id is None else "its owner or staff"
        raise PermissionDenied(
            f"station {station.name!r} may be changed, checked or tested only by {who}; "
            "you may run sessions on it"
        )


def busy_session(station: Station) -> Session | None:
    """The session that holds the station (any state from start to the end), or None."""
    return (
        Session.objects.filter(station=station, state__in=sorted(ACTIVE_STATES))
        .order_by("pk")
        .first()
    )


def ensure_not_busy(station: Station, what: str) -> None:
    """Raise 409 while a session is active on ``station``; ``what`` names the refused act."""
    session = busy_session(station)
    if session is not None:
        raise StationBusy(
            f"station {station.name!r} is busy with session {session.pk} ({session.state}); {what}"
        )
