"""What the data can support: the plain-words notes on what the analysis cannot compute
(:mod:`~qoe_analysis.evidence.notes`), the planning hint (:mod:`~qoe_analysis.evidence.planning`)
and the warnings on what it computed on too little evidence
(:mod:`~qoe_analysis.evidence.warnings`)."""
