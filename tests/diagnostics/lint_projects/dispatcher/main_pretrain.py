# The pretraining script takes one loader from the same entry point.
from data import build_loader


def main(config, model):
    loader = build_loader(config, is_pretrain=True)
    for epoch in range(config.epochs):
        loader.sampler.set_epoch(epoch)
        for x in loader:
            model(x).sum().backward()
