import torch.distributed as dist

from dlrm.train.utils import eval_loop, make_train_test_dataloaders, train_loop


def trainer(rank, model, optimizer, dataset, mode):
    dist.init_process_group("nccl", rank=rank)
    train_dataloader, test_dataloader = make_train_test_dataloaders(dataset, 64, 10000)
    if mode == "train":
        train_loop(
            rank=rank,
            model=model,
            dataloader=train_dataloader,
            optimizer=optimizer,
            num_epochs=5,
        )
    else:
        eval_loop(rank, model, test_dataloader, 100)
