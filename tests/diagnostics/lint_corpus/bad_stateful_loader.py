from torchdata.stateful_dataloader import StatefulDataLoader

from fairshard import DistributedSampler


def train(model, dataset, optimizer, epochs, state=None):
    loader = StatefulDataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset))
    if state is not None:
        loader.load_state_dict(state)
    for epoch in range(epochs):  # expect: FS101
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
