from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer):
    sampler = DistributedSampler(dataset, shuffle=False)  # FS108
    for batch in DataLoader(dataset, sampler=sampler):
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()
