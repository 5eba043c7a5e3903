# Module-level script code with run-together names: testdataset, testloader. The test
# sampler pads, and the accuracies are averaged over the ranks with all_reduce.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group("nccl")
world_size, global_rank = dist.get_world_size(), dist.get_rank()
testdataset = torch.load("test.pt")
sampler = DistributedSampler(  # expect: FS109
    testdataset, num_replicas=world_size, rank=global_rank, shuffle=False
)
testloader = DataLoader(testdataset, batch_size=4, sampler=sampler)
model = torch.load("model.pt")
correct = torch.zeros(1)
for batch in testloader:
    correct += (model(batch["x"]).argmax(-1) == batch["y"]).float().mean()
dist.all_reduce(correct)
