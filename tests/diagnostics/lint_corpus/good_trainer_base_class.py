import sys

import speechbrain as sb
import torch
from hyperpyyaml import load_hyperpyyaml


class ASR(sb.Brain):
    def compute_forward(self, batch, stage):
        return self.modules.model(batch.sig)


if __name__ == "__main__":
    hparams_file, run_opts, overrides = sb.parse_arguments(sys.argv[1:])
    with open(hparams_file) as fin:
        hparams = load_hyperpyyaml(fin, overrides)
    brain = ASR(modules=hparams["modules"], hparams=hparams, run_opts=run_opts)
    # datasets, not loaders: Brain.fit builds the loaders and adds the DistributedSampler
    brain.fit(
        brain.hparams.epoch_counter,
        hparams["train_data"],
        hparams["valid_data"],
        train_loader_kwargs=hparams["dataloader_options"],
    )
    # a test loader built here is read by one evaluation on every rank
    test_loader = torch.utils.data.DataLoader(hparams["test_data"], shuffle=False)
    brain.evaluate(test_loader)
