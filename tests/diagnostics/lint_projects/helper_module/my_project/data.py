from torch.utils.data import DataLoader, DistributedSampler


def build_train_loader(cfg, dataset):
    return DataLoader(dataset, batch_size=cfg.batch_size, sampler=DistributedSampler(dataset))


def build_loader(dataset, batch_size):
    sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
