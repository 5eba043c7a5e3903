import torch.distributed as dist
from engine import final_test, merge
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset_test, output_dir):
    sampler_test = DistributedSampler(dataset_test, shuffle=False)
    test_loader = DataLoader(dataset_test, sampler=sampler_test, batch_size=8)
    final_test(test_loader, model, f"{output_dir}/{dist.get_rank()}.txt")
    dist.barrier()
    if dist.get_rank() == 0:
        return merge(output_dir, dist.get_world_size())
    return None
