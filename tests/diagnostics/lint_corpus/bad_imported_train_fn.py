import engine
import torch
import utils
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def main(args, model, dataset, dataset_test):
    utils.init_distributed_mode(args)
    train_sampler = DistributedSampler(dataset)
    test_sampler = DistributedSampler(dataset_test, shuffle=False)  # expect: FS109
    data_loader = DataLoader(dataset, batch_size=args.batch_size, sampler=train_sampler)
    data_loader_test = DataLoader(dataset_test, batch_size=1, sampler=test_sampler)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.start_epoch, args.epochs):  # expect: FS101
        engine.train_one_epoch(model, optimizer, data_loader, args.device, epoch)
        engine.evaluate(model, data_loader_test, device=args.device)
