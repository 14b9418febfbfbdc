"""Per-condition and per-rater statistics: MOS/CI/SOS, the SOS hypothesis, rater
reliability, P.913 screening, the subject model and response times. Pure functions on
arrays and DataFrames."""
