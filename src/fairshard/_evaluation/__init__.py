"""Layer 5, exact evaluation: padding masks, ordered gathers, exact metrics.

Imports the core and the families below it.
"""
