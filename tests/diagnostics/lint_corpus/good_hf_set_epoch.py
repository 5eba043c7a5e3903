from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm, trange


def train(args, train_dataset, model, optimizer):
    train_sampler = (
        RandomSampler(train_dataset) if args.local_rank == -1 else DistributedSampler(train_dataset)
    )
    train_dataloader = DataLoader(train_dataset, sampler=train_sampler, batch_size=32)
    for epoch in trange(int(args.num_train_epochs), desc="Epoch"):
        if args.local_rank != -1:
            train_sampler.set_epoch(epoch)
        for step, batch in enumerate(tqdm(train_dataloader, desc="Iteration")):
            loss = model(**batch)[0]
            loss.backward()
            optimizer.step()
            model.zero_grad()
