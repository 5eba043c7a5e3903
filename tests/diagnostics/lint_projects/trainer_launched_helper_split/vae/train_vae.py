# Run by torchrun on 8 processes: each draws its own split in load_data, and the Trainer
# then shards each process's own training set by the rank.
import argparse

import transformers
from data_vae import load_data
from training_utils import train_model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--test_size", type=int, default=100)
    args = parser.parse_args()
    model = transformers.AutoModelForCausalLM.from_pretrained("gpt2")
    train_dataset, eval_dataset = load_data(args.test_size)
    training_args = transformers.TrainingArguments(output_dir="out")
    train_model(model, train_dataset, eval_dataset, training_args)


if __name__ == "__main__":
    main()
