"""`torch.nn.init`: engine.nn.init's in-place initializers."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.nn.init import (_calculate_fan_in_and_fan_out, calculate_gain, constant_, dirac_,  # noqa: F401
                            eye_, kaiming_normal_, kaiming_uniform_, normal_, ones_, orthogonal_, trunc_normal_,
                            uniform_, xavier_normal_, xavier_uniform_, zeros_)

__getattr__ = _unsupported_getattr("torch.nn.init", globals())
