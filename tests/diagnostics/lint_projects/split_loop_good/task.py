from data import build_dataloader


def build_all(datasets, batch_size):
    return {
        split: build_dataloader(datasets[split], split, batch_size)
        for split in ["train", "val", "test"]
    }
