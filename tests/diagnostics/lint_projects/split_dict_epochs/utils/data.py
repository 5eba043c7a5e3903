# The samplers are built per split in one comprehension; the training one goes
# into a dict that a trainer class of another module iterates every epoch, and
# nothing in the tree calls set_epoch.
from torch.utils.data import DataLoader, DistributedSampler


def build_dataloader(train_data, valid_data, batch_size, is_distributed):
    def _make_loader(dataset, shuffle, sampler=None):
        return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, sampler=sampler)

    if is_distributed:
        samplers = {
            split: DistributedSampler(ds, drop_last=True)  # expect: FS101
            for split, ds in zip(["train", "valid"], [train_data, valid_data])
        }
        train_loader = _make_loader(train_data, False, samplers["train"])
        valid_loader = _make_loader(valid_data, False, samplers["valid"])
    else:
        train_loader = _make_loader(train_data, True)
        valid_loader = _make_loader(valid_data, False)
    return {"train": train_loader, "valid": valid_loader}
