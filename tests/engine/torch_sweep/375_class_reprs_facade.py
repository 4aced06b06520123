# Every class the facade exports prints as PyTorch's (type(x), a class in a print), the grad-mode context
# managers, devices, generators and data classes included; a Module, Dataset, Optimizer or autograd.Function
# subclass may also list abc.ABC among its bases. (SummaryWriter's class is checked in
# tests/engine/record/test_tensorboard_summaries.py: real PyTorch needs tensorboard to import it, which make
# test does not install.)
import abc
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data as data

for label, space, names in [
        ("nn", nn, ["Buffer", "UninitializedParameter", "Conv1d", "ConvTranspose1d", "ConvTranspose2d", "ELU", "GroupNorm",
              "Hardsigmoid", "Hardswish", "Hardtanh", "LazyLinear", "Mish", "ReLU6", "Transformer", "TransformerDecoder",
              "TransformerDecoderLayer", "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "CircularPad1d",
              "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
              "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d", "Linear", "Embedding", "LSTM"]),
        ("optim", optim, ["ASGD", "Adadelta", "Adamax", "LBFGS", "NAdam", "RAdam", "Rprop", "Adagrad", "SGD"]),
        ("lr_scheduler", optim.lr_scheduler, ["OneCycleLR", "_LRScheduler", "StepLR"]),
        ("data", data, ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
                "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
                "TensorDataset", "WeightedRandomSampler"]),
        ("torch", torch, ["Generator", "device", "finfo", "iinfo", "no_grad", "enable_grad", "set_grad_enabled", "Tensor"]),
        ("autograd", torch.autograd, ["Function", "no_grad", "enable_grad", "set_grad_enabled"]),
        ("jit", torch.jit, ["ScriptModule", "ScriptFunction"])]:
    for name in names:
        print(label, name, getattr(space, name))

print(type(torch.device("cpu")), type(torch.Generator()), type(torch.finfo(torch.float32)), type(torch.no_grad()))
model = nn.Sequential(nn.Conv1d(1, 2, 3), nn.GroupNorm(1, 2), nn.Mish())
print([type(m) for m in model])
ds = data.TensorDataset(torch.arange(4.0))
print(type(ds), type(data.DataLoader(ds, batch_size=2)), type(data.random_split(ds, [2, 2])[0]))
print(type(optim.NAdam(model.parameters())))


class Base(nn.Module, abc.ABC):
    @abc.abstractmethod
    def forward(self, x): ...


class Double(Base):
    def forward(self, x):
        return 2 * x


try:
    Base()
except TypeError as exc:
    print("TypeError", exc)
print(Double()(torch.ones(2)), isinstance(Double(), nn.Module), isinstance(Double(), abc.ABC))


class Squares(data.Dataset, abc.ABC):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return torch.tensor(float(i * i))


print(list(data.DataLoader(Squares(), batch_size=2)))


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x * x * g


x = torch.tensor([1.0, 2.0], requires_grad=True)
Cube.apply(x).sum().backward()
print(x.grad, Cube.__mro__[1], type(Cube.apply(x).grad_fn).__name__)
