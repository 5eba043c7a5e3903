# An evaluation entry point run as one process: it picks its GPU from the config
# (no process group, no DDP, no launcher's rank), so pinning it is its own choice.
import os
from dataclasses import dataclass

import hydra
import torch
from torch.utils.data import DataLoader


@dataclass
class EvaluationConfig:
    gpu_idx: int = 0
    dataset_root: str = "./data"


def run_eval(cfg, dataset, model):
    loader = DataLoader(dataset, batch_size=1, shuffle=False)
    with torch.no_grad():
        return [model(batch) for batch in loader]


@hydra.main(config_path="./configs/", config_name="eval")
def evaluate(cfg: EvaluationConfig) -> None:
    os.environ["CUDA_VISIBLE_DEVICES"] = str(cfg.gpu_idx)
    run_eval(cfg, range(8), torch.nn.Identity())
