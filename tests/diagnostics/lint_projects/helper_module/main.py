# The loaders come from a helper module of the same tree.
import torch.distributed as dist
from my_project.data import build_loader, build_train_loader


def main(cfg, model, optimizer, train_set, val_set):
    dist.init_process_group("nccl")
    loader = build_train_loader(cfg, train_set)
    val_loader = build_loader(val_set, cfg.batch_size)
    for epoch in range(cfg.epochs):  # expect: FS101
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
        val_loss = sum(model(batch).sum() for batch in val_loader)
        dist.all_reduce(val_loss)
