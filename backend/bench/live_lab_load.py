"""The closed-loop load of a live lab: participants' screens and researchers' consoles.

Every virtual user is a thread with its own keep-alive connection. After each answer it
waits a *think time*, then sends its next request (closed loop: a user never has more
than one request out, so no queue builds up in the generator). The real participant
screen does the same: it sets a timer for the server's ``poll_interval_ms`` (1 s) when an
answer arrives (``frontend/src/participant/ParticipantApp.tsx``), and the console
refetches its session view once a second. The bench compresses those seconds so that 50
screens offer the goal's rate.

With N users, mean think time Z and mean response time R, a closed loop runs at
X = N / (R + Z) requests/s (Little's law over the whole cycle, ``Z`` included). With
N = 50 screens and Z = 80 ms: X = 625/s if the server answered at once, 556/s at R = 10 ms,
500/s at R = 20 ms. So the goal (>= 500 polls/s and p99 <= 100 ms) holds only while the
server answers in 20 ms on average — less in practice, since a rating costs its screen a
think time and a request of its own (in the measured runs: 8–12 ms); a slower server makes R grow
and X fall below 500.
Without think time (Z = 0) the same loop measures saturation instead: X is the server's
capacity and R = N / X however fast the server is (54 users at 500/s: 108 ms).

Each think time is drawn uniformly from [Z/2, 3Z/2] (mean Z) by a seeded generator per
user, and each user starts after a first draw from [0, Z): without the spread, users
answered together (after a stall) would sleep the same time and keep arriving together.
A think time is never part of a measured latency: that runs from before the request is
written until its whole body is read (:mod:`live_lab_http`). The run is bounded by a
duration and a total request count, whichever comes first; a think time ends early when
the run does.

- A participant's screen polls its session with ``If-None-Match`` (the last ETag, as a
  browser's cache sends it); when the step is "rating" it rates the slot (idempotency key
  derived from session and slot, so a retry after a lost answer reuses it), and answers
  the post-play questions at the end.
- A console polls the researcher's view of the sessions in turn.
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
    """Mean think times in seconds (0: none, a saturating closed loop)."""

    screen: float
    console: float
    seed: int = 16


class Think:
    """One user's think times: uniform on [mean/2, 3 mean/2], from its own seeded stream."""

    def __init__(self, mean: float, seed: int, stop: threading.Event) -> None:
        self.mean = mean
        self.random = random.Random(seed)
        self.stop = stop

    def first(self) -> None:
        """Before the first request: a phase in [0, mean), so that users start spread out."""
        if self.mean > 0:
            self.stop.wait(self.random.uniform(0, self.mean))

    def __call__(self) -> None:
        if self.mean > 0:
            self.stop.wait(self.random.uniform(0.5 * self.mean, 1.5 * self.mean))


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
    app: App, session: LiveSession, budget: Budget, think: Think, result: UserResult
) -> None:
    client = app.client()
    client.headers["X-Participant-Token"] = session.token
    path = f"/api/v1/participant/sessions/{session.id}/"
    etag: str | None = None
    view: dict[str, Any] | None = None
    think.first()
    while budget.take():
        answer = client.request("GET", path, headers={"If-None-Match": etag} if etag else None)
        result.note("participant poll", answer, answer.status in (200, 304))
        if answer.status == 200:
            view = answer.json()
            etag = answer.headers.get("ETag")
        if view is None or answer.status not in (200, 304):
            think()
            continue
        # The participant's answer to the rating form or the questions is a request of its
        # own, after its own think time (the time to choose, compressed like the polls').
        if view["step"] in ("rating", "post_questions"):
            think()
        if view["step"] == "rating" and budget.take():
            position = view["position"]
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
                view = rated.json()["session"]
                etag = None
        elif view["step"] == "post_questions" and budget.take():
            done = client.request("POST", f"{path}post-questions/", {"answers": POST_ANSWERS})
            result.note("post questions", done, done.status == 200)
            if done.status == 200:
                view, etag = done.json(), None
        think()
    client.close()


def console(
    app: App, client: Client, offset: int, budget: Budget, think: Think, result: UserResult
) -> None:
    ids = [s.id for s in app.sessions]
    think.first()
    for turn in itertools.count(offset):
        if not budget.take():
            break
        answer = client.request("GET", f"/api/v1/sessions/{ids[turn % len(ids)]}/")
        result.note("console session view", answer, answer.status == 200)
        think()
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

    def think(user: int) -> Think:
        mean = pace.screen if user < screens else pace.console
        return Think(mean, pace.seed * 100_003 + user, budget.stop)

    threads = [
        threading.Thread(
            target=guarded,
            args=(participant, results[i], app, s, budget, think(i), results[i]),
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
                think(screens + i),
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
