from torch.utils.data import DataLoader

import fairshard


def train(model, dataset, optimizer, total_steps):
    sampler = fairshard.DistributedSampler(dataset, seed=1234)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, num_workers=2)
    it = iter(loader)
    for step in range(total_steps):  # expect: FS101
        try:
            batch = next(it)
        except StopIteration:
            it = iter(loader)
            batch = next(it)
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()
