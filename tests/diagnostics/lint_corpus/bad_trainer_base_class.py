import sys

import speechbrain as sb
import torch
from hyperpyyaml import load_hyperpyyaml


class ASR(sb.core.Brain):
    def compute_forward(self, batch, stage):
        return self.modules.model(batch.sig)


def dataio_prepare(hparams, train_data):
    # Brain.fit adds a DistributedSampler only to loaders it builds itself
    return torch.utils.data.DataLoader(  # expect: FS103
        train_data,
        batch_size=hparams["batch_size"],
        shuffle=hparams["dataloader_options"]["shuffle"],
    )


if __name__ == "__main__":
    hparams_file, run_opts, overrides = sb.parse_arguments(sys.argv[1:])
    with open(hparams_file) as fin:
        hparams = load_hyperpyyaml(fin, overrides)
    loader = dataio_prepare(hparams, hparams["train_data"])
    brain = ASR(modules=hparams["modules"], hparams=hparams, run_opts=run_opts)
    brain.fit(brain.hparams.epoch_counter, loader, hparams["valid_data"])
