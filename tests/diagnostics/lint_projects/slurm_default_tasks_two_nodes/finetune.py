# srun with no task count in a two-node job: Slurm starts one task per node, two
# processes, and each draws its own split before the Trainer shards it.
import argparse

from datasets import load_from_disk
from transformers import AutoModelForCTC, Trainer, TrainingArguments


def load_data(path):
    data = load_from_disk(path)
    return data.train_test_split(test_size=0.2)  # expect: FS110


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    data = load_data(args.data_dir)
    trainer = Trainer(
        model=AutoModelForCTC.from_pretrained("facebook/hubert-base-ls960"),
        args=TrainingArguments(output_dir="out", num_train_epochs=args.epochs),
        train_dataset=data["train"],
        eval_dataset=data["test"],
    )
    trainer.train()


if __name__ == "__main__":
    main()
