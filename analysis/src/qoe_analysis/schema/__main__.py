"""``python -m qoe_analysis.schema``: print the analysis document's JSON Schema."""

from qoe_analysis.schema.export import main

main()
