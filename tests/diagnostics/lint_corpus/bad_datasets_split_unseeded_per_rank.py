# A fine-tuning script under torchrun: the dev split is cut from the training
# set with datasets' train_test_split and no seed, so every rank draws its own.
import torch.distributed as dist
from datasets import load_dataset
from torch.utils.data import DataLoader, DistributedSampler


def main(model, optimizer, epochs=3):
    dist.init_process_group("nccl")
    data = load_dataset("json", data_files="train.jsonl", split="train")
    parts = data.train_test_split(test_size=1000, shuffle=True)  # expect: FS110
    train = parts["train"].with_format("torch")
    sampler = DistributedSampler(train)
    loader = DataLoader(train, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            model(**batch).loss.backward()
            optimizer.step()
    return parts["test"]


if __name__ == "__main__":
    main(None, None)
