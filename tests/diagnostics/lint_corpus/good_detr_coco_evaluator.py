import torch
import torch.distributed as dist
from datasets import build_dataset, get_coco_api_from_dataset
from engine import evaluate, train_one_epoch
from torch.utils.data import DataLoader, DistributedSampler


def main(args, model, criterion, postprocessors, optimizer):
    dist.init_process_group("nccl")
    dataset_train = build_dataset(image_set="train", args=args)
    dataset_val = build_dataset(image_set="val", args=args)
    sampler_train = DistributedSampler(dataset_train)
    # padded, but CocoEvaluator merges its per-image results by unique image id
    sampler_val = DistributedSampler(dataset_val, shuffle=False)
    batch_sampler_train = torch.utils.data.BatchSampler(sampler_train, 2, drop_last=True)
    data_loader_train = DataLoader(dataset_train, batch_sampler=batch_sampler_train)
    data_loader_val = DataLoader(dataset_val, 2, sampler=sampler_val, drop_last=False)
    base_ds = get_coco_api_from_dataset(dataset_val)
    for epoch in range(args.epochs):
        sampler_train.set_epoch(epoch)
        train_one_epoch(model, criterion, data_loader_train, optimizer, epoch)
        test_stats, coco_evaluator = evaluate(
            model, criterion, postprocessors, data_loader_val, base_ds, args.output_dir
        )
