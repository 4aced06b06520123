"""engine.optim: PyTorch's optimizers (SGD, Adam and its variants, RMSprop, Adagrad, Adadelta, ASGD, Rprop,
L-BFGS) and the Optimizer base, with PyTorch's update formulas."""
from engine.optim import lr_scheduler  # noqa: F401
from engine.optim.adadelta import Adadelta
from engine.optim.adam import Adam, AdamW
from engine.optim.adam_variants import Adamax, NAdam, RAdam
from engine.optim.asgd_rprop import ASGD, Rprop
from engine.optim.lbfgs import LBFGS
from engine.optim.optimizer import Optimizer
from engine.optim.rmsprop import Adagrad, RMSprop
from engine.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta",
           "ASGD", "Rprop", "LBFGS", "lr_scheduler"]
