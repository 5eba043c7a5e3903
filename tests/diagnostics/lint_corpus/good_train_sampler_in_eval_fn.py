# Linear evaluation trains a classifier: the training sampler inside `eval_linear` is for
# training (DINO's eval_linear.py); only the validation loader is evaluation.
import torch
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler


def eval_linear(args, dataset_train, dataset_val, classifier):
    torch.distributed.init_process_group("nccl")
    val_loader = DataLoader(dataset_val, sampler=SequentialSampler(dataset_val), batch_size=64)
    sampler = DistributedSampler(dataset_train)
    train_loader = DataLoader(dataset_train, sampler=sampler, batch_size=64)
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for batch in train_loader:
            classifier(batch).sum().backward()
        for batch in val_loader:
            classifier(batch)
