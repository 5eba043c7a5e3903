import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train_one_epoch(model, criterion, optimizer, data_loader, device):
    model.train()
    for image, target in data_loader:
        image, target = image.to(device), target.to(device)
        loss = criterion(model(image), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main(args, model, dataset):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):  # expect: FS101
        train_one_epoch(model, criterion, optimizer, loader, args.device)
