# The same tuple of loaders, handed to loop functions that set the epoch, or
# whose loader has no distributed sampler, or to a one-epoch function from the
# caller's epoch loop, which sets the epoch (its inner loop restarts the
# iterator within the epoch); the test loader goes to an evaluation pass
# with a parameter of the same name.
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


def make_ordered_dataloaders(dataset, batch_size):
    ordered = DataLoader(dataset, batch_size=batch_size)
    return ordered, len(dataset)


def train_loop(model, dataloader, optimizer, num_epochs):
    for epoch in range(num_epochs):
        dataloader.sampler.set_epoch(epoch)
        for sample in dataloader:
            optimizer.zero_grad()
            model(sample).backward()
            optimizer.step()


def replay(model, dataloader, passes):
    for _ in range(passes):
        for sample in dataloader:
            model(sample)


def train_one_epoch(model, loader, iters):
    data_iter = iter(loader)
    for _ in range(iters):
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            batch = next(data_iter)
        model(batch).backward()


def eval_loop(model, dataloader, repeats):
    for _ in range(repeats):
        for sample in dataloader:
            model(sample)


def main(model, optimizer, dataset, args):
    dist.init_process_group("nccl")
    train_dataloader, test_dataloader = make_train_test_dataloaders(dataset, 32, 1000)
    train_loop(model=model, dataloader=train_dataloader, optimizer=optimizer, num_epochs=5)
    eval_loop(model, dataloader=test_dataloader, repeats=3)
    for epoch in range(args.epochs):
        train_dataloader.sampler.set_epoch(epoch)
        train_one_epoch(model, train_dataloader, 100)
    ordered, size = make_ordered_dataloaders(dataset, 32)
    replay(model, ordered, args.passes)
