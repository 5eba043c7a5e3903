# Both names of the tuple target name evaluation: the padded shares are averaged.
import torch
import torch.distributed as dist
from data import init_data


def main(model, root, epochs):
    train_loader, train_sampler = init_data(root, 64, training=True)
    val_loader, val_sampler = init_data(root, 64, training=False)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
        hits = torch.zeros(2)
        for x, y in val_loader:
            hits += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
        dist.all_reduce(hits)
        print(hits[0] / hits[1])
