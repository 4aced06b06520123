"""Optimization passes (one file each) and the pipeline that runs them with per-pass snapshots."""
from engine.passes.base import PassResult
from engine.passes.pipeline import DEFAULT_PASSES, PipelineResult, run_pipeline

__all__ = ["PassResult", "DEFAULT_PASSES", "PipelineResult", "run_pipeline"]
