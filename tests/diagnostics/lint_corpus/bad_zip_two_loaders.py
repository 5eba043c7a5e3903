from torch.utils.data import DataLoader, DistributedSampler


def train(model, images, texts, optimizer, epochs):
    image_loader = DataLoader(images, batch_size=32, sampler=DistributedSampler(images))
    text_loader = DataLoader(texts, batch_size=32, sampler=DistributedSampler(texts))
    for epoch in range(epochs):  # expect: FS101
        for image_batch, text_batch in zip(image_loader, text_loader):
            optimizer.zero_grad()
            model(image_batch, text_batch).backward()
            optimizer.step()
