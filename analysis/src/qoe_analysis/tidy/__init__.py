"""The tidy ratings contract: its columns, the reference design, and the validation of a
table. Importing ``qoe_analysis.tidy.columns`` loads no numeric library."""
