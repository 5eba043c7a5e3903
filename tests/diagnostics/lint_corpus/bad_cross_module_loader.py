# Known limit: the loader comes from another module, so nothing in this file
# says its sampler is distributed; the missing set_epoch goes unreported.
from my_project.data import build_train_loader


def main(cfg, model, optimizer):
    loader = build_train_loader(cfg)
    for epoch in range(cfg.epochs):  # expect: FS101
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
