# The training loop evaluates every few steps; the evaluation function iterates
# its own loader through a local name the training function also uses. The
# training loader's sampler gets set_epoch; the evaluation pass (every rank reads the
# whole test set in order) is no epoch.
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


def train(model, trainset, testset, epochs):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(trainset)
    train_loader = DataLoader(trainset, sampler=train_sampler, batch_size=32)
    test_loader = DataLoader(testset, sampler=SequentialSampler(testset))
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        batches = tqdm(train_loader, desc="Training")
        for step, (x, y) in enumerate(batches):
            model(x).sum().backward()
            if step % 100 == 0:
                valid(model, test_loader)
