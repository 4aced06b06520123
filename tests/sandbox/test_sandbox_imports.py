"""What a pasted program imports from the torch facade loads in the sandbox, where a run may not
load Dagscope's modules the zygote did not (a submodule imported only on demand would be refused
there: only the standard library is compiled from source in a run, app/sandbox/stdlib_import.py)."""


def test_torch_submodules_import_in_the_sandbox(sandbox_run):
    record = sandbox_run("import torch\nfrom torch.nn.utils.rnn import pad_sequence\nimport torch.nn.utils as u\n"
                         "from torch.utils.data import DataLoader\nimport torch.linalg\n"
                         "from torch.utils.data.dataloader import default_collate\nimport torch.utils.data.sampler\n"
                         "from torch.utils.data.dataset import IterableDataset\n"
                         "print(pad_sequence([torch.ones(1), torch.ones(2)]).shape, u.clip_grad_norm_.__name__)")
    assert record["error"] is None, record["error"]
    assert record["stdout"] == "torch.Size([2, 2]) clip_grad_norm_\n"


def test_summary_writer_values_reach_the_record_through_the_sandbox(sandbox_run):
    record = sandbox_run("from torch.utils.tensorboard import SummaryWriter\nimport torch.utils.tensorboard.writer\n"
                         "with SummaryWriter() as w:\n    for i in range(3):\n        w.add_scalar('loss', 1 / (i + 1), i)\n"
                         "    w.add_histogram('h', [1.0, 2.0, 2.0], 0)\nimport os\nprint(os.listdir('.'))")
    assert record["error"] is None, record["error"]
    assert record["stdout"] == "[]\n"                              # nothing written to disk
    assert record["summaries"]["scalars"] == [{"tag": "loss", "points": [[0, 1.0], [1, 0.5], [2, 1 / 3]], "logged": 3}]
    assert sum(record["summaries"]["histograms"][0]["snapshots"][0]["counts"]) == 3
