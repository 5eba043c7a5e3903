import torch
from torch.utils.data import DataLoader, DistributedSampler


def make_train_test_dataloaders(dataset, batch_size, train_size):
    train_set = torch.utils.data.Subset(dataset, range(train_size))
    test_set = torch.utils.data.Subset(dataset, range(train_size, len(dataset)))
    train_dataloader = DataLoader(
        dataset=train_set, batch_size=batch_size, sampler=DistributedSampler(train_set)
    )
    test_dataloader = DataLoader(
        dataset=test_set,
        batch_size=batch_size,
        sampler=DistributedSampler(test_set, drop_last=True),
    )
    return train_dataloader, test_dataloader


def train_loop(rank, model, dataloader, optimizer, num_epochs):
    model = model.train()
    for _ in range(num_epochs):  # expect: FS101
        for sample in dataloader:
            optimizer.zero_grad()
            model(sample).backward()
            optimizer.step()


def eval_loop(rank, model, dataloader, num_batches):
    model = model.eval()
    for i, sample in enumerate(dataloader):
        if i >= num_batches:
            break
        model(sample)
