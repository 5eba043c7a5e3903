# The same flat script, reading the name it binds (data): it runs on, and the
# prepared evaluation gathers the samples accelerate repeats to even the last batch.
import datasets
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader

data = datasets.load_from_disk("data/samsum")
columns = data["train"].column_names
accelerator = Accelerator()
model = torch.nn.Linear(4, 2)
val_loader = DataLoader(data["validation"].remove_columns(columns), batch_size=16)
model, val_loader = accelerator.prepare(model, val_loader)
for batch in val_loader:
    with torch.no_grad():
        predictions = model(batch["x"]).argmax(-1)
    print(accelerator.gather(predictions == batch["y"]).float().mean())  # expect: FS109
