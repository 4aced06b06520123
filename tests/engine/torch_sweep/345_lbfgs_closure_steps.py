# L-BFGS on a small least-squares fit and on an ill-conditioned quadratic bowl, with and without the
# strong-Wolfe line search: the loss each step() returns, the parameters after, and how many times the
# closure ran. (Not Rosenbrock: from (-1.5, 2) PyTorch's path there hangs on MKL's float32 dot, whose
# summation order decides the last bit, and 80 iterations amplify it.)
import torch
torch.manual_seed(0)
x = torch.randn(20, 3)
y = x @ torch.tensor([1.5, -2.0, 0.5]) + 0.3
lin = torch.nn.Linear(3, 1)
for search in [None, "strong_wolfe"]:
    model = torch.nn.Linear(3, 1)
    model.load_state_dict(lin.state_dict())
    opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, history_size=3, line_search_fn=search)
    calls = 0
    def closure():
        global calls
        calls += 1
        opt.zero_grad()
        loss = ((model(x).squeeze(1) - y) ** 2).mean()
        loss.backward()
        return loss
    for i in range(3):
        loss = opt.step(closure)
        print(search, i, round(loss.item(), 5), calls)
    print(model.weight.data, model.bias.data)
for search in [None, "strong_wolfe"]:
    xy = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = torch.optim.LBFGS([xy], lr=1, max_iter=20, line_search_fn=search)
    def rosen():
        opt.zero_grad()
        f = (1 - xy[0]) ** 2 + 10 * (xy[1] - 0.5 * xy[0]) ** 2 + 0.1 * xy[1] ** 4
        f.backward()
        return f
    for i in range(3):
        f = opt.step(rosen)
        print(search, i, xy.data, round(f.item(), 4), opt.state[xy]["func_evals"], opt.state[xy]["n_iter"])
print(opt)
