# Rank 0 appends every gathered prediction as a row of its own: the padded repeats
# are rows too, so some samples are scored twice.
import numpy as np
import pandas as pd
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def predict(model, dataset, template_csv):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    ids, preds = [], []
    for batch in DataLoader(dataset, batch_size=8, sampler=sampler):
        ids.append(batch["sample_id"].numpy())
        preds.append(model(batch["image"]).argmax(1).numpy())
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, (np.concatenate(ids), np.concatenate(preds)))
    if dist.get_rank() == 0:
        submission = pd.read_csv(template_csv)
        row = 0
        for part_ids, part_preds in gathered:
            for sid, pred in zip(part_ids, part_preds):
                submission.loc[row, "prediction"] = int(pred)
                row += 1
        print((submission["prediction"] == submission["label"]).mean())
