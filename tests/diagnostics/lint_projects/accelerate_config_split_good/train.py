# The same script, whose only accelerate config runs one process: the split is drawn once.
import torch
from accelerate import Accelerator
from datasets import load_dataset
from torch.utils.data import DataLoader

data = load_dataset("csv", data_files="reviews.csv")["train"]
parts = data.train_test_split(test_size=0.1)


def main():
    accelerator = Accelerator()
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.AdamW(model.parameters())
    train = DataLoader(parts["train"], batch_size=8, shuffle=True)
    model, optimizer, train = accelerator.prepare(model, optimizer, train)
    for batch in train:
        accelerator.backward(model(batch["x"]).mean())
        optimizer.step()


if __name__ == "__main__":
    main()
