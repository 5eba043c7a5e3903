import torch.distributed as dist
from proj.builder import get_trainer
from proj.data import DepthData
from proj.trainers.report import Reporter


def main(config, model, train_set, test_set):
    dist.init_process_group("nccl")
    train_loader = DepthData(config, train_set, "train").data
    test_loader = DepthData(config, test_set, "online_eval").data
    trainer = get_trainer(config)(config, model, train_loader, test_loader)
    trainer.train()
    Reporter(model, train_loader, test_loader).run(config.epochs)
