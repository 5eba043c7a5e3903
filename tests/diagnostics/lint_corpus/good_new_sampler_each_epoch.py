# Known limit: a new sampler seeded by the epoch each pass changes the order
# without set_epoch, but the loop looks like the forgotten-set_epoch pattern.
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, optimizer, epochs):
    for epoch in range(epochs):
        sampler = DistributedSampler(dataset, seed=epoch)
        for batch in DataLoader(dataset, sampler=sampler, batch_size=8):
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
