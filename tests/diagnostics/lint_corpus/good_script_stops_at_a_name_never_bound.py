# A flat script whose module-level code reads a name the file never binds
# (train_set, not data): it stops there with a NameError, and the prepared
# evaluation below, which gathers the padded last batch, never runs.
import datasets
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader

data = datasets.load_from_disk("data/samsum")
columns = train_set["id"].column_names  # noqa: F821 (the name the script never binds)
accelerator = Accelerator()
model = torch.nn.Linear(4, 2)
val_loader = DataLoader(data["validation"].remove_columns(columns), batch_size=16)
model, val_loader = accelerator.prepare(model, val_loader)
for batch in val_loader:
    with torch.no_grad():
        predictions = model(batch["x"]).argmax(-1)
    print(accelerator.gather(predictions == batch["y"]).float().mean())
