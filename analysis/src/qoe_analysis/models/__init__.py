"""Models of acceptability: information gain and MDL cuts (Weka parity), the
REPTree-recipe tree, logistic fits and the KPI thresholds."""
