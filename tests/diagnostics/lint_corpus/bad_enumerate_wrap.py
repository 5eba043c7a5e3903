from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, num_epochs, log):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, drop_last=True)
    epoch = 0
    while epoch < num_epochs:  # expect: FS101
        for i, (x, y) in enumerate(loader):
            loss = model(x, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if i % 100 == 0:
                log(epoch, i, loss.item())
        epoch += 1
