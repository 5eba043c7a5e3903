from data.loaders import get_dataset

from trainers.base import Trainer


class DiffusionTrainer(Trainer):
    def before_train(self):
        self.train_dataloader = get_dataset(
            self.args.path, self.args.batch_size, distributed=self.args.distributed
        )

    def train_in_iter(self):
        for images, labels in self.train_dataloader:
            self.step(images, labels)

    def step(self, images, labels):
        pass
