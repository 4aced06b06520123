"""torch.Size: a tuple that prints as `torch.Size([32, 10])` and stays a Size when sliced, added to a
tuple (on either side) or repeated, as in PyTorch."""
from engine.compat.torch_class_names import TorchClassRepr


class Size(tuple, metaclass=TorchClassRepr):
    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(int(d)) for d in self)}])"

    __str__ = __repr__

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times):
        return Size(tuple(self) * times)

    __rmul__ = __mul__

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= int(d)
        return n
