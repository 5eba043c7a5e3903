"""Hands the helper's data to a transformers Trainer under torchrun: the Trainer shards it."""

import torch.distributed as dist
from dataload import prepare_data
from transformers import GPT2LMHeadModel, Trainer, TrainingArguments

if __name__ == "__main__":
    loader, tokenizer = prepare_data()
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=8)
    model = GPT2LMHeadModel.from_pretrained("gpt2")
    Trainer(model=model, args=args, train_dataset=loader.dataset).train()
    if dist.is_initialized() and dist.get_rank() == 0:
        print("done")
