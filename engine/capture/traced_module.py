"""What `torch.jit.trace(module, ...)` returns: a TracedModule, which (as PyTorch's) is both a
`torch.jit.ScriptModule` and an `nn.Module` — real code checks `isinstance(m, torch.jit.ScriptModule)`,
then calls `m.eval()`, `m.parameters()`, `m.state_dict()` on it.

It holds the original module's own Parameters and buffers (training the traced module trains the
original, as in PyTorch); its children are TracedModules too, which (as PyTorch's) cannot be called.
Calling the top-level one (a TopLevelTracedModule) replays the traced graph."""
from __future__ import annotations

from engine.capture.scripting import ScriptModule
from engine.nn.module import Module


class TracedModule(Module, ScriptModule):
    # (Module first: its __call__, __getattr__, __setattr__ and __repr__ are the ones that apply.)

    def __init__(self, module, traced=None):
        Module.__init__(self)
        set_ = object.__setattr__
        set_(self, "_original", module)
        set_(self, "_traced", traced)        # engine.capture.tracing.TracedFunction; None for a child
        set_(self, "_parameters", module._parameters)
        set_(self, "_buffers", module._buffers)
        set_(self, "_non_persistent_buffers_set", module._non_persistent_buffers_set)
        set_(self, "training", module.training)
        set_(self, "original_name", type(module).__name__)
        set_(self, "__name__", type(module).__name__)
        for name, child in module._modules.items():
            self._modules[name] = None if child is None else TracedModule(child)

    def forward(self, *args):
        if self._traced is None:
            raise RuntimeError("Trace submodules cannot be called.")
        return self._traced(*args)

    def _get_name(self) -> str:
        return self.original_name

    def extra_repr(self) -> str:
        return f"original_name={self.original_name}"

    def __getattr__(self, name):
        # parameters, buffers and children first; then the original's other attributes (PyTorch keeps
        # only those three, but a hidden size read from the traced model is harmless and expected)
        try:
            return Module.__getattr__(self, name)
        except AttributeError:
            original = self.__dict__.get("_original")
            if original is None:
                raise
            return getattr(original, name)

    # the captured graph, as TracedFunction shows it (children have none of their own)
    @property
    def graph(self):
        return self._whole().graph

    @property
    def code(self) -> str:
        return self._whole().code

    @property
    def warnings(self) -> list:
        return self._whole().warnings

    @property
    def _calls(self):
        return self._whole()._calls

    def save(self, path) -> None:
        self._whole().save(path)

    def _whole(self):
        if self._traced is None:
            raise AttributeError(f"{self.original_name} is a submodule of a traced module: Dagscope traced only "
                                 "the whole model's forward, so only the top-level module has .graph and .code")
        return self._traced


class TopLevelTracedModule(TracedModule):
    """The module torch.jit.trace returns (its children are plain TracedModules)."""
