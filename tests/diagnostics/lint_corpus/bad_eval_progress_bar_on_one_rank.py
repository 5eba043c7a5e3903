# The evaluation shows a progress bar on rank 0 only (iterator = tqdm(loader) if rank == 0
# else loader): every rank still reads the padded loader, and the loss is all-reduced.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm


def evaluate(loader, model, rank):
    total = 0.0
    iterator = tqdm(loader, ascii=True) if rank == 0 else loader
    with torch.no_grad():
        for x, y in iterator:
            loss = torch.nn.functional.mse_loss(model(x), y)
            dist.all_reduce(loss)
            total += loss.item()
    return total


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    val_set = [(torch.randn(4), torch.randn(1)) for _ in range(30)]
    val_sampler = DistributedSampler(val_set, shuffle=False)  # expect: FS109
    val_loader = DataLoader(val_set, batch_size=8, sampler=val_sampler)
    model = torch.nn.Linear(4, 1)
    print(evaluate(val_loader, model, rank))


if __name__ == "__main__":
    main()
