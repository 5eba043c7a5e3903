"""Layer 6, diagnostics: the simulator, coverage checks, reports and plots.

Reads samplers through their public protocol; finds fairshard's families
through the registry the core keeps, never by importing the package top.
"""
