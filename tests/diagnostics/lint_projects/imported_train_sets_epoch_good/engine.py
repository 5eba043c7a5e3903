# The imported training function calls set_epoch itself.
def _prepare(loader, epoch):
    loader.sampler.set_epoch(epoch)


def train(model, loader, optimizer, epoch):
    _prepare(loader, epoch)
    for batch in loader:
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()
