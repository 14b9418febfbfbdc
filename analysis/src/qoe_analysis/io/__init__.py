"""Reading and writing: CSV cells, ARFF, JSON text, plots. The maths never imports this package."""
