# The same evaluation, and the ranks' counts are all-reduced before the log:
# the padded samples count twice.
import logging

import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler


def make_batch_data_sampler(sampler, images_per_batch):
    return BatchSampler(sampler, images_per_batch, drop_last=False)


class Evaluator:
    def __init__(self, model, metric, val_dataset):
        dist.init_process_group("nccl")
        self.model, self.metric = model, metric
        val_sampler = DistributedSampler(val_dataset, shuffle=False)  # expect: FS109
        val_batch_sampler = make_batch_data_sampler(val_sampler, images_per_batch=1)
        self.val_loader = DataLoader(dataset=val_dataset, batch_sampler=val_batch_sampler)

    def eval(self):
        self.metric.reset()
        for image, target in self.val_loader:
            self.metric.update(self.model(image), target)
            correct = self.metric.correct
            dist.all_reduce(correct)
            pix_acc, miou = self.metric.get()
            logging.info("pixAcc %.3f mIoU %.3f", pix_acc, miou)
