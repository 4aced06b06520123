"""Dagscope web application: pages, JSON API, sandboxed runs and graph rendering."""
