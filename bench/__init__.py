"""Evaluation: Pith and its peers scored on the same pages with the field's metric."""
