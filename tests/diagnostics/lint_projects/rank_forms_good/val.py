from data import (
    loader_flag,
    loader_in_else,
    loader_ne,
    loader_negated,
    loader_not_in,
    loader_reversed,
)


def run(model, dataset):
    test_loader = loader_ne(dataset, rank=-1)
    val_loader = loader_reversed(dataset, local_rank=-1)
    eval_loader = loader_not_in(dataset, rank=0)
    valid_loader = loader_in_else(dataset, -1)
    test_loader_2 = loader_negated(dataset)
    val_loader_2 = loader_flag(dataset, distributed=False)
    loaders = (test_loader, val_loader, eval_loader, valid_loader, test_loader_2, val_loader_2)
    return [model(batch) for loader in loaders for batch in loader]
