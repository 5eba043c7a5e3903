import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from src.datasets import LoadDataset
from src.results import evaluate_model
from src.trainer import Trainer


def main(device, n_gpu, epochs, data_class):
    if n_gpu > 1:
        dist.init_process_group("nccl", rank=device, world_size=n_gpu)
    train_loader = data_class.get_dataloader("train", device=device, n_gpu=n_gpu)
    valid_loader = data_class.get_dataloader("valid", device=device, n_gpu=n_gpu)
    Trainer(
        model=torch.nn.Identity(),
        train_dataloader=train_loader,
        valid_dataloader=valid_loader,
        epochs=epochs,
        distributed=n_gpu > 1,
    ).train()
    test_loader = data_class.get_dataloader("test", device=device, n_gpu=n_gpu)
    print(evaluate_model(torch.nn.Identity(), dataloader=test_loader))


if __name__ == "__main__":
    data_class = LoadDataset(["data/a.h5", "data/b.h5"])
    if torch.cuda.is_available():
        n_gpu = torch.cuda.device_count()
        mp.spawn(main, args=(n_gpu, 100, data_class), nprocs=n_gpu, join=True)
    else:
        main(device="cpu", n_gpu=0, epochs=100, data_class=data_class)
