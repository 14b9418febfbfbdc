"""One password check under the sign-in limits: ask before hashing, count its outcome.

The order is the rule's (see :mod:`.throttles` and :mod:`.name_delay`): the user name's
delay is read first (a delayed check takes no room in any bucket), then room is taken in
the address's and the (user name, address) buckets; after the hash a failure is counted
in both buckets, in the name's delay and against the address, a success only remembers
the address as one the name signs in from. Nothing is hashed when a limit refuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qoelab.accounts import name_delay
from qoelab.accounts.throttles import Admission, admit, buckets_for
from qoelab.core.client_address import client_address


@dataclass
class Attempt:
    """A check that was let through; end it with :meth:`failed`, :meth:`succeeded` or
    :meth:`abandoned` (exactly one)."""

    address: str
    username: str
    admission: Admission

    def failed(self) -> None:
        self.admission.failed()
        name_delay.record_failure(self.address, self.username)

    def succeeded(self) -> None:
        self.admission.release()
        name_delay.record_success(self.address, self.username)

    def abandoned(self) -> None:
        """The check raised before it knew the password was wrong: nothing is counted."""
        self.admission.release()


def begin(request: Any, username: str) -> Attempt:
    """Let one check of ``username`` from the request's client through, or raise
    :class:`qoelab.accounts.throttles.TooManyAttempts` (429) having counted nothing."""
    address = client_address(request) if request is not None else ""
    name_delay.check(address, username)
    return Attempt(address, username, admit(buckets_for(address, username)))
