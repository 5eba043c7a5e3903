import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(train_data, hparams, shuffle):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_data, shuffle=hparams["dataloader_options"]["shuffle"])
    train_loader = DataLoader(train_data, sampler=sampler, batch_size=hparams["batch_size"])
    # an explicit False from the config, and a plain parameter, say nothing
    plain = DataLoader(train_data, shuffle=False, batch_size=hparams["batch_size"])
    passed = DataLoader(train_data, shuffle=shuffle)
    return train_loader, plain, passed
