"""The paced load of a live lab: participants' screens and researchers' consoles.

Every virtual user is a thread with its own keep-alive connection that sends one request
per *period* (default 1 s: the real participant screen polls every ``poll_interval_ms``
= 1 s, ``frontend/src/participant/ParticipantApp.tsx``, and the console refetches its
session view once a second, ``SessionConsolePage.tsx``). Its requests are due at
``phase + k·period`` with a phase drawn from [0, period) by a seeded generator per user,
so the 50 screens spread over the second instead of arriving together. A request that
comes due while the previous answer is still out is sent as soon as that answer arrives
(no burst to catch up): a user never has more than one request out. The real screen
waits a full period *after* each answer, so this schedule offers slightly more load than
the screens do, never less.

With period 0 the same users send their next request at once: a closed loop at
saturation, whose throughput is the server's capacity under this mix (for information).

A latency runs from before the request is written until its whole body is read
(:mod:`live_lab_http`). The run is bounded by a duration and a total request count,
whichever comes first; a wait ends early when the run does.

- A participant's screen polls its session with ``If-None-Match`` (the last ETag, as a
  browser's cache sends it); when the view asks for a rating, the screen's next request
  (one period later: the time to choose) rates the slot (idempotency key derived from
  session and slot, so a retry after a lost answer reuses it), and likewise it answers
  the post-play questions at the end.
- A console reads the researcher's view of the sessions in turn.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from live_lab_app import App, LiveSession
from live_lab_http import Answer, Client

POST_ANSWERS = {"willing_to_pay": "yes", "attitude": "positive"}


@dataclass
class PathStats:
    seconds: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: int = 0

    def record(self, answer: Answer, ok: bool) -> None:
        self.seconds.append(answer.seconds)
        self.statuses[answer.status] = self.statuses.get(answer.status, 0) + 1
        if not ok:
            self.errors += 1

    def merge(self, other: PathStats) -> None:
        self.seconds.extend(other.seconds)
        for status, n in other.statuses.items():
            self.statuses[status] = self.statuses.get(status, 0) + n
        self.errors += other.errors


@dataclass
class UserResult:
    paths: dict[str, PathStats] = field(default_factory=dict)
    acknowledged: set[tuple[int, str]] = field(default_factory=set)
    error_samples: list[str] = field(default_factory=list)

    def path(self, name: str) -> PathStats:
        return self.paths.setdefault(name, PathStats())

    def note(self, name: str, answer: Answer, ok: bool) -> None:
        self.path(name).record(answer, ok)
        if not ok and len(self.error_samples) < 5:
            self.error_samples.append(f"{name}: {answer.status} {answer.body[:200]!r}")


@dataclass(frozen=True)
class Pace:
    """Request periods in seconds (0: none, a saturating closed loop)."""

    screen: float
    console: float
    seed: int = 16


class Schedule:
    """One user's due times: ``phase + k·period``, the phase from its own seeded stream; a
    request that is late goes at once and the schedule restarts from it."""

    def __init__(self, period: float, seed: int, stop: threading.Event) -> None:
        self.period = period
        self.stop = stop
        self.due = time.monotonic() + random.Random(seed).uniform(0, period)

    def __call__(self) -> None:
        """Wait until the next request is due."""
        if self.period <= 0:
            return
        now = time.monotonic()
        if self.due > now:
            self.stop.wait(self.due - now)
            now = self.due
        self.due = now + self.period


class Budget:
    """The run's bounds: a deadline and a request count shared by every user."""

    def __init__(self, seconds: float, requests: int) -> None:
        self.deadline = time.monotonic() + seconds
        self.requests = requests
        self._counter = itertools.count(1)
        self.stop = threading.Event()

    def take(self) -> bool:
        if self.stop.is_set():
            return False
        if next(self._counter) > self.requests or time.monotonic() >= self.deadline:
            self.stop.set()
            return False
        return True


def participant(
    app: App, session: LiveSession, budget: Budget, wait: Schedule, result: UserResult
) -> None:
    client = app.client()
    client.headers["X-Participant-Token"] = session.token
    path = f"/api/v1/participant/sessions/{session.id}/"
    etag: str | None = None
    view: dict[str, Any] | None = None
    while True:
        wait()
        if not budget.take():
            break
        step = view["step"] if view is not None else None
        if step == "rating":
            position = view["position"] if view is not None else 0
            key = f"bench-{session.id}-{position}"
            body = {
                "score": 1 + (session.id + position) % 5,
                "position": position,
                "idempotency_key": key,
            }
            rated = client.request("POST", f"{path}rate/", body)
            result.note("rating submission", rated, rated.status in (200, 201))
            if rated.status in (200, 201):
                result.acknowledged.add((session.id, key))
                view, etag = rated.json()["session"], None
            else:
                view = None
        elif step == "post_questions":
            done = client.request("POST", f"{path}post-questions/", {"answers": POST_ANSWERS})
            result.note("post questions", done, done.status == 200)
            view, etag = (done.json(), None) if done.status == 200 else (None, etag)
        else:
            answer = client.request("GET", path, headers={"If-None-Match": etag} if etag else None)
            result.note("participant poll", answer, answer.status in (200, 304))
            if answer.status == 200:
                view = answer.json()
                etag = answer.headers.get("ETag")
    client.close()


def console(
    app: App, client: Client, offset: int, budget: Budget, wait: Schedule, result: UserResult
) -> None:
    ids = [s.id for s in app.sessions]
    for turn in itertools.count(offset):
        wait()
        if not budget.take():
            break
        answer = client.request("GET", f"/api/v1/sessions/{ids[turn % len(ids)]}/")
        result.note("console session view", answer, answer.status == 200)
    client.close()


def guarded(user: Callable[..., None], result: UserResult, *args: Any) -> None:
    """Run a virtual user; a crash of its thread is a failed request, not a silent gap."""
    try:
        user(*args)
    except Exception as exc:  # any failure of the user's own code
        result.path("virtual user crashed").errors += 1
        result.error_samples.append(f"{user.__name__}: {exc!r}")


@dataclass
class LoadResult:
    seconds: float
    paths: dict[str, PathStats]
    acknowledged: set[tuple[int, str]]
    error_samples: list[str]


def run_load(app: App, *, seconds: float, requests: int, consoles: int, pace: Pace) -> LoadResult:
    """Every session's screen and ``consoles`` consoles, until the budget is spent."""
    # The consoles sign in before the clock starts: the run measures the polling.
    signed_in = [app.researcher() for _ in range(consoles)]
    budget = Budget(seconds, requests)
    screens = len(app.sessions)
    results = [UserResult() for _ in range(screens + consoles)]

    def schedule(user: int) -> Schedule:
        period = pace.screen if user < screens else pace.console
        return Schedule(period, pace.seed * 100_003 + user, budget.stop)

    threads = [
        threading.Thread(
            target=guarded,
            args=(participant, results[i], app, s, budget, schedule(i), results[i]),
            daemon=True,
        )
        for i, s in enumerate(app.sessions)
    ]
    threads += [
        threading.Thread(
            target=guarded,
            args=(
                console,
                results[screens + i],
                app,
                signed_in[i],
                i * screens // max(consoles, 1),
                budget,
                schedule(screens + i),
                results[screens + i],
            ),
            daemon=True,
        )
        for i in range(consoles)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    elapsed = time.monotonic() - started
    merged: dict[str, PathStats] = {}
    acknowledged: set[tuple[int, str]] = set()
    samples: list[str] = []
    for result in results:
        for name, stats in result.paths.items():
            merged.setdefault(name, PathStats()).merge(stats)
        acknowledged |= result.acknowledged
        samples += result.error_samples
    return LoadResult(elapsed, merged, acknowledged, samples[:10])
