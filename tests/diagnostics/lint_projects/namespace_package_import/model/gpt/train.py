# Run from the tree's root (model/ holds no .py of its own, a namespace package): the import
# resolves there, though the model/ package beside the script lacks it; the script runs, and
# its shuffling sampler is never given set_epoch.
import torch.distributed as dist
from model.gpt.model.loader import build_dataset
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group("nccl")
data = build_dataset(100)
loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
for epoch in range(10):  # expect: FS101
    for batch in loader:
        pass
