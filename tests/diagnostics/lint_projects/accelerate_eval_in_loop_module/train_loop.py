# Names no loader: the validation loader comes prepared from train.py, through train().
# accelerate fills the short ranks' last batch from the start of the set, and gather keeps
# the fill, so those samples count twice in the loss that picks the checkpoint.
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
        loss = accelerator.gather(loss)  # expect: FS109
        losses.append(loss)
    return torch.cat([x.flatten() for x in losses]).mean().item()
