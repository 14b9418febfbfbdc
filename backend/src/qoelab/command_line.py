"""`manage.py` for QoE Lab, also installed as the `qoelab-manage` console script.

A configuration error (bad DATABASE_URL, missing secret key in production, …) is printed
as one line naming the variable, with exit code 2, instead of a traceback.
"""

from __future__ import annotations

import os
import sys

from django.core.exceptions import ImproperlyConfigured


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qoelab.settings")
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(argv if argv is not None else sys.argv)
    except ImproperlyConfigured as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
