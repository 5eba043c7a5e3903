# horovodrun -np 2 python train.py: every process draws its own unseeded split, so the
# training and test sets overlap across ranks.
import horovod.torch as hvd
import torch
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, DistributedSampler


def main(sentences, labels, model, optimizer, epochs):
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    x_train, _, y_train, _ = train_test_split(sentences, labels, test_size=0.1)  # expect: FS110
    train_set = list(zip(x_train, y_train))
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(train_set, sampler=sampler, batch_size=64)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
