"""`torch.nn.modules`: every module class of torch.nn, and the files PyTorch defines them in
(`torch.nn.modules.linear.Linear`), which programs name when they list a checkpoint's safe globals."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.nn.modules import (activation, batchnorm, container, conv, dropout, flatten,  # noqa: F401
                                            linear, loss, module, normalization, padding, pooling, rnn, sparse,
                                            transformer, upsampling)

for _file in (activation, batchnorm, container, conv, dropout, flatten, linear, loss, module, normalization,
              padding, pooling, rnn, sparse, transformer, upsampling):
    globals().update({k: v for k, v in vars(_file).items() if k[:1].isupper()})

__getattr__ = _unsupported_getattr("torch.nn.modules", globals())
