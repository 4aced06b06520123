"""Dagscope's compiled kernels: fusion groups -> C (or numpy) source -> cached shared libraries -> an executor."""
