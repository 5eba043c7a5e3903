import torch.distributed as dist
from data.build import build_data_loader


def main(cfg, model, train_set, val_set):
    loader = build_data_loader(cfg, train_set, train=True)
    val = build_data_loader(cfg, val_set, train=False)
    for epoch in range(cfg.epochs):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
        loss = sum(model(batch).sum() for batch in val)
        dist.all_reduce(loss)
