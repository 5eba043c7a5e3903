# The same TPU evaluation in a tree whose only launch runs GPUs (torch.distributed.launch):
# the TPU sampler is never built, so nothing pads.
import numpy as np
import torch
import torch_xla.core.xla_model as xm
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def get_tpu_sampler(dataset):
    return DistributedSampler(dataset, num_replicas=xm.xrt_world_size(), rank=xm.get_ordinal())


def evaluate(model, eval_dataset):
    loader = DataLoader(eval_dataset, batch_size=8, sampler=get_tpu_sampler(eval_dataset))
    preds = []
    with torch.no_grad():
        for x in loader:
            preds.append(model(x).cpu().numpy())
    preds = xm.mesh_reduce("eval_preds", np.concatenate(preds), np.concatenate)
    return float(preds.mean())


def main():
    model = torch.nn.Linear(4, 1)
    eval_dataset = [torch.randn(4) for _ in range(30)]
    print(evaluate(model, eval_dataset))


def _mp_fn(index):
    main()


if __name__ == "__main__":
    main()
