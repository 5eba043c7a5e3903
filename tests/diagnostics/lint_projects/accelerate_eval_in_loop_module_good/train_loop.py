# The same evaluation, gathered with gather_for_metrics on each batch: accelerate's fill is
# dropped at the last batch, so every sample counts once.
import torch


def train(model, optimizer, train_loader, val_loader, accelerator, epochs):
    for _ in range(epochs):
        for batch in train_loader:
            accelerator.backward(model(batch).mean())
            optimizer.step()
        print(evaluate(model, val_loader, accelerator))


@torch.no_grad()
def evaluate(model, val_loader, accelerator):
    losses = []
    for batch in val_loader:
        loss = model(batch).mean().detach()
        loss = accelerator.gather_for_metrics(loss)
        losses.append(loss)
    return torch.cat([x.flatten() for x in losses]).mean().item()
