# The builder returns the training and test loaders as a tuple; the training
# loader is handed (by keyword, or by position) to a loop function that runs
# the epochs itself and never calls set_epoch: every epoch repeats one order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset


def make_train_test_dataloaders(dataset, batch_size, train_size):
    train_set = Subset(dataset, range(train_size))
    test_set = Subset(dataset, range(train_size, len(dataset)))
    train_dataloader = DataLoader(
        train_set, batch_size=batch_size, sampler=DistributedSampler(train_set)
    )
    test_dataloader = DataLoader(
        test_set, batch_size=batch_size, sampler=DistributedSampler(test_set, shuffle=False)
    )
    return train_dataloader, test_dataloader


def train_loop(model, dataloader, optimizer, num_epochs):
    model.train()
    for _ in range(num_epochs):  # expect: FS101
        for sample in dataloader:
            optimizer.zero_grad()
            model(sample).backward()
            optimizer.step()


def fit(model, optimizer, loader, epochs):
    epoch = 0
    while epoch < epochs:  # expect: FS101
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
        epoch += 1


def eval_loop(model, dataloader):
    for sample in dataloader:
        model(sample)


def main(model, optimizer, dataset, args):
    dist.init_process_group("nccl")
    train_dataloader, test_dataloader = make_train_test_dataloaders(dataset, 32, 1000)
    train_loop(model=model, dataloader=train_dataloader, optimizer=optimizer, num_epochs=5)
    fit(model, optimizer, train_dataloader, args.epochs)
    eval_loop(model, dataloader=test_dataloader)
