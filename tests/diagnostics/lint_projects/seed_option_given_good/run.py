# The transformers *_no_trainer examples' seed, set only when --seed is passed: the
# shipped line passes it, so every rank draws the same validation split.
import argparse

import datasets
from accelerate import Accelerator
from accelerate.utils import set_seed
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--lr", type=float, default=1e-4)
    args = parser.parse_args()
    accelerator = Accelerator()
    if args.seed is not None:
        set_seed(args.seed)
    frame = datasets.load_dataset("csv", data_files="logs.csv")["train"].to_pandas()
    raw = datasets.Dataset.from_pandas(frame).train_test_split(test_size=0.1)
    rows, held = train_test_split(frame, test_size=0.1, random_state=args.seed)
    loader = DataLoader(raw["train"], batch_size=8, shuffle=True)
    loader = accelerator.prepare(loader)
    for batch in loader:
        accelerator.print(batch, len(rows), len(held))


if __name__ == "__main__":
    main()
