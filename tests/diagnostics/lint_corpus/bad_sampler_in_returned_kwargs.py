# A helper returns the loader's keyword arguments, the distributed sampler among them.
from torch.utils.data import DataLoader, DistributedSampler


def get_dataloader_kwargs(dataset, batch_size, mode):
    kwargs = {"batch_size": batch_size, "drop_last": True}
    kwargs["sampler"] = DistributedSampler(dataset, shuffle=mode == "train")
    return kwargs


def main(model, optimizer, dataset_train, epochs):
    train_dl_kwargs = get_dataloader_kwargs(dataset_train, 8, "train")
    train_dataloader = DataLoader(dataset_train, num_workers=1, **train_dl_kwargs)
    for epoch in range(epochs):  # expect: FS101
        for batch in train_dataloader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
