# The same steps-and-evaluation layout with the training loader never re-seeded:
# the outer pass over the shuffling training loader is the epoch loop (reported
# once); the step loop that calls the evaluation function is not.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler
from tqdm import tqdm


def valid(model, test_loader):
    batches = tqdm(test_loader, desc="Validating")
    correct = torch.zeros(1)
    for x, y in batches:
        correct += (model(x).argmax(1) == y).sum()
    return correct


def train(model, trainset, testset):
    dist.init_process_group("nccl")
    train_loader = DataLoader(trainset, sampler=DistributedSampler(trainset), batch_size=32)
    test_loader = DataLoader(testset, sampler=SequentialSampler(testset))
    while True:  # expect: FS101
        batches = tqdm(train_loader, desc="Training")
        for step, (x, y) in enumerate(batches):
            model(x).sum().backward()
            if step % 100 == 0:
                valid(model, test_loader)
