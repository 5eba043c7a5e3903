# The evaluation gathers each rank's predictions in place and cuts the concatenation back
# to the number of examples, as transformers' older Trainer did: the padded repeats sit at
# the end of the gathered tensor and are cut off, so every example counts once.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def distributed_concat(tensor, num_total_examples):
    output_tensors = [tensor.clone() for _ in range(dist.get_world_size())]
    dist.all_gather(output_tensors, tensor)
    concat = torch.cat(output_tensors, dim=0)
    return concat[:num_total_examples]


def num_examples(loader):
    return len(loader.dataset)


@torch.no_grad()
def evaluate(model, eval_set):
    sampler = DistributedSampler(eval_set, shuffle=False)
    loader = DataLoader(eval_set, batch_size=32, sampler=sampler)
    preds, labels = [], []
    for x, y in loader:
        preds.append(model(x).argmax(-1))
        labels.append(y)
    preds = distributed_concat(torch.cat(preds), num_total_examples=num_examples(loader))
    labels = distributed_concat(torch.cat(labels), num_total_examples=num_examples(loader))
    return (preds == labels).float().mean().item()


def main(model, eval_set):
    dist.init_process_group("nccl")
    print(evaluate(model, eval_set))
