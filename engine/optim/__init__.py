"""engine.optim: SGD, Adam, AdamW, RMSprop, Adagrad and the Optimizer base, with PyTorch's update formulas."""
from engine.optim import lr_scheduler  # noqa: F401
from engine.optim.adam import Adam, AdamW
from engine.optim.optimizer import Optimizer
from engine.optim.rmsprop import Adagrad, RMSprop
from engine.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
