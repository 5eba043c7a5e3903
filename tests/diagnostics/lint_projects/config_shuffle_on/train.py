# The config turns the sampler's shuffling on and nothing sets the epoch: every
# epoch repeats each rank's order.
import hydra
import torch.distributed as dist
from dataloader import get_dataloader


@hydra.main(config_path="configs", config_name="config_train")
def main(args):
    dist.init_process_group("nccl")
    loader = get_dataloader(args.data.dataset, 8, args.seed, shuffle=args.data.shuffle)
    for epoch in range(args.epochs):  # expect: FS101
        for batch in loader:
            args.model(batch).backward()


if __name__ == "__main__":
    main()
