import torch
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm


def train(args, train_dataset, eval_dataset, model, optimizer):
    if args.local_rank == -1:
        train_sampler = RandomSampler(train_dataset)
    else:
        train_sampler = DistributedSampler(train_dataset)
    train_dataloader = DataLoader(train_dataset, sampler=train_sampler, batch_size=32)
    eval_dataloader = DataLoader(eval_dataset, sampler=SequentialSampler(eval_dataset))
    for epoch in range(int(args.num_train_epochs)):  # expect: FS101
        model.train()
        for step, batch in enumerate(
            tqdm(train_dataloader, disable=args.local_rank not in [-1, 0])
        ):
            batch = tuple(t.to(args.device) for t in batch)
            loss = model(*batch)[0]
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        if args.local_rank in [-1, 0]:
            with torch.no_grad():
                for batch in eval_dataloader:
                    model(*batch)
