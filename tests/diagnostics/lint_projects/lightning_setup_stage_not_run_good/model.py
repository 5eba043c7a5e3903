import lightning as L


class Net(L.LightningModule):
    def __init__(self, width: int = 8):
        super().__init__()
        self.width = width

    def training_step(self, batch, batch_idx):
        return batch[0].sum()

    def test_step(self, batch, batch_idx):
        return batch[0].sum()

    def predict_step(self, batch, batch_idx):
        return batch[0]
