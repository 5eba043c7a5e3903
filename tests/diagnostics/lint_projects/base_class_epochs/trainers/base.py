import torch.distributed as dist


class Trainer:
    def __init__(self, args):
        self.args = args
        self.epochs = args.epochs

    def train(self):
        if self.args.distributed:
            dist.init_process_group("nccl")
        self.before_train()
        for epoch in range(self.epochs):
            self.before_iter()
            self.train_in_iter()
            self.after_iter()

    def before_train(self):
        pass

    def before_iter(self):
        pass

    def train_in_iter(self):
        pass

    def after_iter(self):
        pass
