from pkg.data import make_loader


def evaluate(model, dataset):
    loader = make_loader(dataset, 64, shuffle=False)
    return [model(batch) for batch in loader]
