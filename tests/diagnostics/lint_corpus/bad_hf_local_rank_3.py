import torch
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm, trange


def train(args, train_dataset, model, optimizer):
    if args.local_rank != -1:
        torch.cuda.set_device(args.local_rank)
        torch.distributed.init_process_group(backend="nccl")
    sampler = (
        RandomSampler(train_dataset) if args.local_rank == -1 else DistributedSampler(train_dataset)
    )
    dataloader = DataLoader(train_dataset, sampler=sampler, batch_size=args.train_batch_size)
    for epoch in trange(args.num_train_epochs, desc="Epoch"):  # expect: FS101
        tr_loss = 0
        for step, batch in enumerate(tqdm(dataloader, desc="Iteration")):
            loss = model(*batch)
            loss.backward()
            tr_loss += loss.item()
            optimizer.step()
            optimizer.zero_grad()
