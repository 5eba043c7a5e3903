"""A trainer class in the older transformers shape whose prediction loop gathers the
padded shares whole: the repeats the sampler added are counted twice."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler


class Trainer:
    def __init__(self, model, train_dataset, eval_dataset):
        self.model = model
        self.train_dataset = train_dataset
        self.eval_dataset = eval_dataset

    def train(self, optimizer):
        data_loader = DataLoader(self.train_dataset, sampler=RandomSampler(self.train_dataset))
        for batch in data_loader:
            optimizer.zero_grad()
            self.model(batch).sum().backward()
            optimizer.step()

    def get_eval_dataloader(self):
        sampler = DistributedSampler(self.eval_dataset, shuffle=False)  # expect: FS109
        data_loader = DataLoader(self.eval_dataset, sampler=sampler, batch_size=8)
        return data_loader

    def evaluate(self):
        eval_dataloader = self.get_eval_dataloader()
        return self.prediction_loop(eval_dataloader)

    def prediction_loop(self, dataloader):
        preds = torch.cat([self.model(batch) for batch in dataloader])
        preds = self.distributed_concat(preds)
        return preds.mean()

    def distributed_concat(self, tensor):
        output_tensors = [tensor.clone() for _ in range(dist.get_world_size())]
        dist.all_gather(output_tensors, tensor)
        return torch.cat(output_tensors, dim=0)
