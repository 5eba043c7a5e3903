import torch.distributed as dist
from data import loader_ne, loader_not_in


def run(model, dataset, rank):
    test_loader = loader_ne(dataset, rank=rank)
    val_loader = loader_not_in(dataset, rank=3)
    score = sum(model(batch).sum() for loader in (test_loader, val_loader) for batch in loader)
    dist.all_reduce(score)  # the ranks' sums combined: the padded samples count twice
    return score
