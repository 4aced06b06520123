# matmul's own error words for 1-D, matrix-vector, batched and mixed-dtype products.
import torch


def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, type(exc).__name__ + ":", exc)


attempt("matmul 1d", lambda: torch.ones(3) @ torch.ones(4))
attempt("mv", lambda: torch.ones(2, 3) @ torch.ones(2))
attempt("bmm", lambda: torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 4, 2)))
attempt("batched", lambda: torch.ones(2, 2, 3) @ torch.ones(3, 3, 2))
attempt("dtypes 1d", lambda: torch.tensor([1.0, 2.0]) @ torch.tensor([1.0, 2.0], dtype=torch.float64))
attempt("dtypes 2d", lambda: torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64))
attempt("int float", lambda: torch.ones(2, 2, dtype=torch.long) @ torch.ones(2, 2))
