# The validation loader is prepared (even_batches=True: each rank's last batch is
# filled from the head of the data), a torchmetrics F1 is updated with every rank's
# raw batches, and compute() syncs the states over the ranks: the fill counts twice.
from accelerate import Accelerator
from torch.utils.data import DataLoader
from torchmetrics import F1Score


def evaluate(model, val_set):
    accelerator = Accelerator()
    val_loader = DataLoader(val_set, batch_size=16, shuffle=False)
    model, val_loader = accelerator.prepare(model, val_loader)
    f1 = F1Score(task="multiclass", num_classes=2).to(accelerator.device)
    for images, labels in val_loader:
        f1.update(model(images).argmax(1), labels)
    return f1.compute()  # expect: FS109
