import hydra
import pytorch_lightning as pl
from vocos.dataset import VocosDataModule
from vocos.experiment import VocosExp


class TrainingRun:
    def __init__(self, cfg, on_cluster):
        self.cfg, self.on_cluster = cfg, on_cluster

    def trainer(self):
        trainer_params = dict(max_epochs=self.cfg.epochs, num_sanity_val_steps=0)
        if self.on_cluster:
            trainer_params.update(dict(gpus=self.cfg.cluster.gpus_per_node, deterministic=True))
        return pl.Trainer(**trainer_params)


@hydra.main(config_path="config", config_name="config")
def main(cfg):
    run = TrainingRun(cfg, cfg.on_cluster)
    run.trainer().fit(VocosExp(None), datamodule=VocosDataModule(None, None))


if __name__ == "__main__":
    main()
