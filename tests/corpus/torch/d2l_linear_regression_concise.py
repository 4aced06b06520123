# Source: d2l-ai/d2l-zh, chapter_linear-networks/linear-regression-concise.md
#   at e6b18ccea71451a55fcd861d7b96fddf2587b09a (Apache-2.0)
# Modules: d2l/torch.py as d2l.torch
# Changed: the chapter's pytorch code cells in order, as one script (`%matplotlib inline` dropped,
#   a cell's last bare expression printed as the notebook shows it, statements drawing with d2l.plt
#   or IPython.display removed, a chapter's own Animator class replaced by the shim's no-op
#   d2l.Animator), 1000 examples -> 100. d2l's helpers are tests/corpus/modules/d2l/.
from d2l import torch as d2l
import numpy as np
import torch
from torch.utils import data

true_w = d2l.tensor([2, -3.4])
true_b = 4.2
features, labels = d2l.synthetic_data(true_w, true_b, 100)

def load_array(data_arrays, batch_size, is_train=True):  #@save
    """构造一个PyTorch数据迭代器"""
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)

batch_size = 10
data_iter = load_array((features, labels), batch_size)

print(next(iter(data_iter)))

# nn是神经网络的缩写
from torch import nn
net = nn.Sequential(nn.Linear(2, 1))

net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)

loss = nn.MSELoss()

trainer = torch.optim.SGD(net.parameters(), lr=0.03)

num_epochs = 3
for epoch in range(num_epochs):
    for X, y in data_iter:
        l = loss(net(X) ,y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:f}')

w = net[0].weight.data
print('w的估计误差：', true_w - d2l.reshape(w, true_w.shape))
b = net[0].bias.data
print('b的估计误差：', true_b - b)
