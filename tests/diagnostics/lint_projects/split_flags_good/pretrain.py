# One training split, and two training splits interleaved; a drop_last list with False in it.
import torch.distributed as dist
from data import create_pinned, create_sampler


def main(model, datasets, epochs):
    world, rank = dist.get_world_size(), dist.get_rank()
    samplers = create_sampler(datasets[:1], [True], world, rank)
    both = create_sampler(datasets, [True, True], world, rank)
    loaders = create_pinned(datasets, [False, True])
    for epoch in range(epochs):
        for sampler in samplers + both:
            sampler.set_epoch(epoch)
        for x in loaders[0]:
            model(x).sum().backward()
