"""Fine-tunes and tests on the devices it is given."""

import lightning as L
from data.molecules import MoleculeData
from model import Net

if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=3)
    trainer.fit(Net(), datamodule=MoleculeData())
    trainer.test(Net(), datamodule=MoleculeData())
