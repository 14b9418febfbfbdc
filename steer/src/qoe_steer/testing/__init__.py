"""Level B of the steering service: the lab scenario inside user-mode Linux (test payload).

Used by ``steer/tests/kernel`` and ``steer/bench``; not part of the service itself.
"""
