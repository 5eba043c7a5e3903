# The module imported is in no folder of the tree: the import fails, nothing after it runs.
import torch.distributed as dist
from model.gpt.model.absent import build_dataset
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group("nccl")
data = build_dataset(100)
loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
for epoch in range(10):
    for batch in loader:
        pass
