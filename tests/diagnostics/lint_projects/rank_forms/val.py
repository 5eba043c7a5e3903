from data import loader_ne, loader_not_in


def run(model, dataset, rank):
    test_loader = loader_ne(dataset, rank=rank)
    val_loader = loader_not_in(dataset, rank=3)
    return [model(batch) for loader in (test_loader, val_loader) for batch in loader]
