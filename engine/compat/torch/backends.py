"""`torch.backends`: the cudnn/cuda/mps flags pasted code sets for determinism or speed (nanoGPT's
`torch.backends.cuda.matmul.allow_tf32 = True`); they change nothing on the CPU, in PyTorch as here."""
from types import SimpleNamespace

cudnn = SimpleNamespace(deterministic=False, benchmark=False, enabled=True, allow_tf32=True,
                        is_available=lambda: False)
cuda = SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                              allow_bf16_reduced_precision_reduction=True),
                       is_built=lambda: False)
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
