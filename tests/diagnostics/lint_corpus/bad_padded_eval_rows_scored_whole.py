# The gathered table of a padded evaluation is scored whole: the repeats the sampler
# added to make the shares equal count twice in the mean.
import pandas as pd
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


@torch.no_grad()
def embed(model, images, labels):
    codes = torch.arange(len(images))
    dataset = TensorDataset(images, labels, codes)
    sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    rows = []
    for x, y, code in DataLoader(dataset, batch_size=64, sampler=sampler):
        for e, label, c in zip(model(x).tolist(), y.tolist(), code.tolist()):
            rows.append({"embedding": e, "label": label, "code": c})
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, rows)
    table = pd.DataFrame([row for part in gathered for row in part])
    table = table.sort_values("code")
    return table["embedding"].tolist(), (table["label"] == 0).mean()


def main(model, images, labels):
    dist.init_process_group("nccl")
    print(embed(model, images, labels))
