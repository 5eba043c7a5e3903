import torch.distributed as dist
import torch.multiprocessing as mp
from evaluator.trainer import EvalTrainer
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler


def build_trainer(args, cfg, model, opt, trn_dset, val_dset, gpu=0):
    if cfg.use_ddp:
        sampler = DistributedSampler(trn_dset, num_replicas=args.world_size, rank=cfg.rank)
        trn_loader = DataLoader(trn_dset, sampler=sampler, shuffle=False, batch_size=8)
        model = DDP(model, device_ids=[gpu])
    else:
        trn_loader = DataLoader(trn_dset, shuffle=True, batch_size=8)
    val_loader = DataLoader(val_dset, shuffle=False, batch_size=8)
    trainer = EvalTrainer(model, opt, cfg)
    return trn_loader, val_loader, trainer


def train_ddp(gpu, args, cfg, model, opt, trn_dset, val_dset):
    cfg.rank = args.nr * args.gpus_per_node + gpu
    dist.init_process_group("nccl", world_size=args.world_size, rank=cfg.rank)
    trn_loader, val_loader, trainer = build_trainer(args, cfg, model, opt, trn_dset, val_dset, gpu)
    trainer.train(trn_loader, val_loader)


def main(args, cfg, model, opt, trn_dset, val_dset):
    mp.spawn(train_ddp, nprocs=args.gpus_per_node, args=(args, cfg, model, opt, trn_dset, val_dset))
