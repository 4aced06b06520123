"""What a pasted program imports from the torch facade loads in the sandbox, where a run may not
load modules the zygote did not (a submodule imported only on demand would be refused there)."""


def test_torch_submodules_import_in_the_sandbox(sandbox_run):
    record = sandbox_run("import torch\nfrom torch.nn.utils.rnn import pad_sequence\nimport torch.nn.utils as u\n"
                         "from torch.utils.data import DataLoader\nimport torch.linalg\n"
                         "from torch.utils.data.dataloader import default_collate\nimport torch.utils.data.sampler\n"
                         "from torch.utils.data.dataset import IterableDataset\n"
                         "print(pad_sequence([torch.ones(1), torch.ones(2)]).shape, u.clip_grad_norm_.__name__)")
    assert record["error"] is None, record["error"]
    assert record["stdout"] == "torch.Size([2, 2]) clip_grad_norm_\n"
