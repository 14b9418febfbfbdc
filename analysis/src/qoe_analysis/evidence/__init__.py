"""What the data can support: the plain-words notes on what the analysis cannot compute."""
