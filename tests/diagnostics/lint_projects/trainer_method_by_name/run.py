# The epoch loop hands the loader to model.train(), an object the file cannot type; no
# code of the tree sets the sampler's epoch, so every epoch repeats its order.
import torch.distributed as dist
from methods import get_method
from torch.utils.data import DataLoader, DistributedSampler


def main(net, optimizer, dataset, epochs):
    dist.init_process_group("nccl")
    train_loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset))
    model = get_method(net, optimizer)
    for cur_epoch in range(epochs):  # expect: FS101
        loss = model.train(cur_epoch=cur_epoch, train_loader=train_loader)
        print(cur_epoch, loss)
