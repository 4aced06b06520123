"""torch.Size: a tuple that prints as `torch.Size([32, 10])`."""


class Size(tuple):
    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(int(d)) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= int(d)
        return n
