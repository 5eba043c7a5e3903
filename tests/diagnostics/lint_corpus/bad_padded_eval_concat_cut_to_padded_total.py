# The evaluation gathers each rank's predictions in place and cuts the concatenation to
# the padded sampler's own per-rank count times the ranks: that is the padded total, so
# the repeats stay in and count twice.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def distributed_concat(tensor, total_size):
    output_tensors = [tensor.clone() for _ in range(dist.get_world_size())]
    dist.all_gather(output_tensors, tensor)
    concat = torch.cat(output_tensors, dim=0)
    return concat[:total_size]


@torch.no_grad()
def evaluate(model, eval_set):
    sampler = DistributedSampler(eval_set, shuffle=False)  # expect: FS109
    loader = DataLoader(eval_set, batch_size=32, sampler=sampler)
    preds, labels = [], []
    for x, y in loader:
        preds.append(model(x).argmax(-1))
        labels.append(y)
    preds = distributed_concat(torch.cat(preds), total_size=loader.sampler.total_size)
    labels = distributed_concat(torch.cat(labels), total_size=loader.sampler.total_size)
    return (preds == labels).float().mean().item()


def main(model, eval_set):
    dist.init_process_group("nccl")
    print(evaluate(model, eval_set))
