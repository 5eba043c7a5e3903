"""Builds the chat loaders; transformers is imported for the tokenizer only."""

import torch
from torch.utils.data import DataLoader
from transformers import GPT2Tokenizer


def prepare_data(batch_size=64):
    tokenizer = GPT2Tokenizer.from_pretrained("gpt2")
    ids = [tokenizer("hello there")["input_ids"]] * 100
    data = torch.tensor(ids)
    train_loader = DataLoader(data, batch_size=batch_size, shuffle=True)
    return train_loader, tokenizer
