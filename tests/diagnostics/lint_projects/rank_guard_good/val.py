from data import create_dataloader


def run(model, dataset):
    val_loader = create_dataloader(dataset, 32, rank=-1, shuffle=False)
    return [model(batch) for batch in val_loader]
