import sys

import torch.distributed as dist
import yaml
from torch.utils.data import DataLoader


def main(train_data, valid_data, collate):
    with open(sys.argv[1]) as handle:
        hparams = yaml.safe_load(handle)  # dataloader_options: {shuffle: true}
    dist.init_process_group("nccl")
    train_loader = DataLoader(  # expect: FS103
        train_data,
        batch_size=hparams["batch_size"],
        collate_fn=collate,
        shuffle=hparams["dataloader_options"]["shuffle"],
    )
    other = DataLoader(train_data, shuffle=hparams.get("shuffle", True))  # expect: FS103
    cfg_loader = DataLoader(train_data, shuffle=hparams.data.train.shuffle)  # expect: FS103
    # evaluation on every rank reads the whole validation set on purpose
    valid_loader = DataLoader(valid_data, shuffle=hparams["dataloader_options"]["shuffle"])
    return train_loader, other, cfg_loader, valid_loader
