"""nn.Module: parameters, buffers and submodules by name, train/eval, hooks, state_dict, and a
repr exactly like PyTorch's. Registered tensors carry their qualified names (`fc1.weight`) and
`__call__` pushes the module's path, so the recorder can label graph nodes with both."""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Callable, Iterator

import numpy as np

from engine import autograd, nn_context
from engine.nn import hooks
from engine.compat import torch_dtypes
from engine.compat.torch_class_names import TorchABCClassRepr
from engine.compat.torch_size import Size
from engine.errors import UnsupportedAttributeError, UnsupportedError
from engine.hooks import MODULE_CALLED
from engine.nn.parameter import Buffer, Parameter
from engine.tensor import Tensor


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """What register_*_hook returns: `.remove()` takes the hook out again."""
    _next_id = 0

    def __init__(self, hooks: dict, *extra: dict):
        self._hooks = hooks
        self._extra = extra          # per-hook flags (with_kwargs) kept beside the hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        for table in (self._hooks, *self._extra):
            table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module(metaclass=TorchABCClassRepr):
    """Base class of every layer and model (subclass it and write `forward`)."""

    training: bool
    _version = 1

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes no arguments but was given some "
                            "(did you forget to pass them to your own __init__?)")
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", {})        # plain dicts, as PyTorch 2.x's (print(model._modules))
        set_(self, "_buffers", {})
        set_(self, "_non_persistent_buffers_set", set())
        set_(self, "_modules", {})
        set_(self, "_forward_hooks", OrderedDict())
        set_(self, "_forward_hooks_with_kwargs", OrderedDict())
        set_(self, "_forward_pre_hooks", OrderedDict())
        set_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        set_(self, "_backward_hooks", OrderedDict())
        set_(self, "_backward_pre_hooks", OrderedDict())
        set_(self, "_qualname", "")          # path from the model that owns it, e.g. "encoder.fc1"

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- calling ----
    def __call__(self, *args, **kwargs):
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
                continue
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        backward_hooked = bool(self._backward_hooks or self._backward_pre_hooks) and autograd.is_grad_enabled()
        if backward_hooked:
            args, hook_pass = hooks.wrap_inputs(self, args)
        nn_context.push(self._qualname)
        try:
            out = self.forward(*args, **kwargs)
        finally:
            nn_context.pop()
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, out)
            else:
                result = hook(self, args, out)
            if result is not None:
                out = result
        if backward_hooked:
            out = hooks.wrap_output(self, out, hook_pass)
        if MODULE_CALLED and not nn_context._stack:       # the model itself, not one of its layers
            for observer in MODULE_CALLED:
                observer(self, out)
        return out

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """hook(module, args, output) — or hook(module, args, kwargs, output) with_kwargs — after forward;
        a result other than None replaces the output."""
        if always_call:
            raise UnsupportedError("register_forward_hook(always_call=True) is not supported by Dagscope.")
        return self._add_hook(self._forward_hooks, hook, prepend, self._forward_hooks_with_kwargs, with_kwargs)

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """hook(module, args) — or hook(module, args, kwargs) with_kwargs — before forward; a result other
        than None replaces the arguments."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend, self._forward_pre_hooks_with_kwargs,
                              with_kwargs)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) once the gradients for the module's input are known."""
        return self._add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_output) when the gradient for the module's output arrives."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    @staticmethod
    def _add_hook(table: OrderedDict, hook: Callable, prepend: bool, flags: OrderedDict | None = None,
                  flagged: bool = False) -> RemovableHandle:
        handle = RemovableHandle(table, *(() if flags is None else (flags,)))
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)       # runs before the hooks already there
        if flagged:
            flags[handle.id] = True
        return handle

    def register_backward_hook(self, hook):
        raise UnsupportedError("Module.register_backward_hook (deprecated in PyTorch) is not supported by "
                               "Dagscope; use register_full_backward_hook.")

    # ---- attributes: parameters, buffers and submodules live in their own dicts ----
    def __setattr__(self, name: str, value) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._discard(name, keep="_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None and not isinstance(value, Parameter):
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if self.__dict__.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._discard(name, keep="_modules")
            self.add_module(name, value)
        elif self.__dict__.get("_modules") is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            self._modules[name] = None
        elif isinstance(value, Buffer):
            self._discard(name)
            self.register_buffer(name, value, value.persistent)
        elif self.__dict__.get("_buffers") is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            self._buffers[name] = value
            self._name_tensor(name, value)
        else:
            object.__setattr__(self, name, value)

    def _discard(self, name: str, keep: str | None = None) -> None:
        """Forget `name` as an attribute, buffer, parameter or child, except in the store `keep`: replacing
        a parameter or child (`model.fc = nn.Linear(...)`) keeps its place, as in PyTorch's dicts, so
        print(model), state_dict() and parameters() keep their order."""
        for store in ("_parameters", "_buffers", "_modules"):
            if store != keep:
                self.__dict__[store].pop(name, None)
        self.__dict__.pop(name, None)

    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        if name in _UNSUPPORTED_MODULE_METHODS:
            raise UnsupportedAttributeError(f"nn.Module.{name} is not supported by Dagscope (used on "
                                            f"{type(self).__name__}).")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    def register_parameter(self, name: str, param) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param
        self._name_tensor(name, param)

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            tensor = Tensor(tensor.array)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        self._name_tensor(name, tensor)

    def add_module(self, name: str, module) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module
        if module is not None:
            module._set_qualname(_join(self._qualname, name))

    register_module = add_module

    def _check_new_name(self, name, kind: str, store: dict) -> None:
        """PyTorch's rules for a parameter's or buffer's name (a name taken by another attribute would
        otherwise shadow it, or be shadowed)."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in store:
            raise KeyError(f"attribute '{name}' already exists")

    def get_submodule(self, target: str) -> "Module":
        mod = self
        for part in target.split(".") if target else ():
            if part not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{part}`")
            mod = mod._modules[part]
        return mod

    def get_buffer(self, target: str) -> Tensor:
        mod, name = self._owner_of(target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    def get_parameter(self, target: str) -> Parameter:
        mod, name = self._owner_of(target)
        if name not in mod._parameters:
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return mod._parameters[name]

    def _owner_of(self, target: str):
        """The submodule holding the attribute `target` names, and the attribute's name (PyTorch's words
        when the attribute does not exist at all; the caller checks it is the right kind)."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name

    # ---- names for the recorder ----
    def _set_qualname(self, path: str) -> None:
        """Name this module and everything under it relative to its new owner."""
        object.__setattr__(self, "_qualname", path)
        for name, p in self._parameters.items():
            self._name_tensor(name, p)
        for name, b in self._buffers.items():
            self._name_tensor(name, b)
        for name, m in self._modules.items():
            if m is not None:
                m._set_qualname(_join(path, name))

    def __setstate__(self, state: dict) -> None:
        """After copy.deepcopy or pickle: the new tensors get this module's names again."""
        self.__dict__.update(state)
        self._set_qualname(self._qualname)

    def _name_tensor(self, name: str, t) -> None:
        if isinstance(t, Tensor):
            t._name = _join(self._qualname, name)
            t._module = self._qualname or None

    # ---- iteration ----
    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        memo = set() if memo is None else memo
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, _join(prefix, name), remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def _named_members(self, store: str, prefix: str, recurse: bool, remove_duplicate: bool = True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, t in getattr(mod, store).items():
                if t is None or (remove_duplicate and id(t) in seen):
                    continue
                seen.add(id(t))
                yield _join(mod_prefix, name), t

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- modes and grads ----
    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            _zero_grad(p, set_to_none)

    def apply(self, fn: Callable) -> "Module":
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- device and dtype (CPU only) ----
    def to(self, *args, **kwargs) -> "Module":
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, torch_dtypes.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = torch_dtype_of(a)
            else:
                _check_device(a)
        if "device" in kwargs:
            _check_device(kwargs["device"])
        if dtype is not None:
            self._cast_floats(torch_dtypes.to_numpy(dtype))
        return self

    def cpu(self) -> "Module":
        return self

    def cuda(self, device=None) -> "Module":
        _check_device("cuda")
        return self

    def float(self) -> "Module":
        return self._cast_floats(np.dtype(np.float32))

    def double(self) -> "Module":
        return self._cast_floats(np.dtype(np.float64))

    def half(self) -> "Module":
        return self._cast_floats(np.dtype(np.float16))

    def _cast_floats(self, dtype: np.dtype) -> "Module":
        for t in list(self.parameters()) + list(self.buffers()):
            if t.array.dtype.kind == "f":
                t.array = t.array.astype(dtype)
                if t.grad is not None:
                    t.grad.array = t.grad.array.astype(dtype)
        return self

    # ---- state ----
    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()     # each module's _version, as PyTorch keeps it
        out = destination
        if hasattr(out, "_metadata"):
            out._metadata[prefix[:-1]] = {"version": self._version}
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                out[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(out, prefix + name + ".", keep_vars)
        return out

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)       # filled in below: the caller's dict stays as it was
        for path, module in self.named_modules(remove_duplicate=False):
            version = (metadata or {}).get(path, {}).get("version")
            module._upgrade_state_dict(state_dict, path + "." if path else "", version)
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            source = state_dict[key]
            if not isinstance(source, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(source)}")
                continue
            value = source.array
            if tuple(value.shape) != tuple(target.array.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape {Size(value.shape)} from "
                              f"checkpoint, the shape in current model is {Size(target.array.shape)}.")
                continue
            if assign:
                self._assign_loaded(key, source)
            else:
                np.copyto(target.array, value.astype(target.array.dtype, copy=False))
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _assign_loaded(self, key: str, source: Tensor) -> None:
        """load_state_dict(assign=True) as PyTorch's: the module takes the loaded tensor itself (its dtype,
        its storage), a parameter wrapped as a Parameter keeping the old one's requires_grad."""
        path, _, name = key.rpartition(".")
        module = self.get_submodule(path) if path else self
        if name in module._parameters:
            requires_grad = module._parameters[name].requires_grad
            if isinstance(source, Parameter):
                source.requires_grad_(requires_grad)
            else:
                source = Parameter(source, requires_grad=requires_grad)
        setattr(module, name, source)

    def _upgrade_state_dict(self, state_dict: OrderedDict, prefix: str, version) -> None:
        """Add in place what a state_dict saved by an older version of this module (`version` from
        its `_metadata`, None for a plain dict) lacks; PyTorch's _load_from_state_dict does this."""

    # ---- printing ----
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(m), 2) for name, m in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


# PyTorch Module methods Dagscope leaves out: using one fails as `unsupported`, not as a typo.
_UNSUPPORTED_MODULE_METHODS = frozenset({
    "bfloat16", "compile", "share_memory", "to_empty", "type", "ipu", "xpu", "mtia", "set_submodule",
    "get_extra_state", "set_extra_state", "register_state_dict_pre_hook", "register_state_dict_post_hook",
    "register_load_state_dict_pre_hook", "register_load_state_dict_post_hook"})


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _typename(value) -> str:
    if isinstance(value, Tensor):
        return "torch.FloatTensor" if value.array.dtype == np.float32 else "torch.Tensor"
    return type(value).__module__ + "." + type(value).__name__ if type(value).__module__ != "builtins" \
        else type(value).__name__


def _check_device(device) -> None:
    text = str(device) if device is not None else "cpu"
    if not text.startswith("cpu"):
        raise UnsupportedError(f"device {text!r}: Dagscope runs on the CPU only; use 'cpu' "
                               "(torch.cuda.is_available() returns False here).")


def torch_dtype_of(t: Tensor):
    return torch_dtypes.from_numpy(t.array.dtype)


def _zero_grad(p: Tensor, set_to_none: bool) -> None:
    if p.grad is None:
        return
    if set_to_none:
        p.grad = None
    else:
        p.grad.grad_fn = None
        p.grad.requires_grad = False
        p.grad.array[...] = 0

