# The detections are gathered and cut to the dataset's length, but the recall
# counters are gathered whole and summed over the padded shares.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def merge_results_dist(parts, size):
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, parts)
    return [r for rank in gathered for r in rank][:size]


def eval_one_epoch(model, dataset):
    sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    loader = DataLoader(dataset, sampler=sampler)
    det_annos, metric = [], {"gt_num": 0, "recall": 0}
    for batch in loader:
        det_annos += model(batch)
        metric["gt_num"] += len(batch["gt_boxes"])
    det_annos = merge_results_dist(det_annos, len(dataset))
    metric = merge_results_dist([metric], dist.get_world_size())
    return det_annos, sum(m["recall"] for m in metric) / sum(m["gt_num"] for m in metric)
