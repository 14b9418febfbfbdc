#!/usr/bin/env python
"""Django's command-line utility for QoE Lab (see qoelab.command_line)."""

from qoelab.command_line import main

if __name__ == "__main__":
    raise SystemExit(main())
