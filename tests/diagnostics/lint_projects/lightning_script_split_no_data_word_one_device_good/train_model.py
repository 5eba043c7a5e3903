# Names no loader or dataset, and its trainer takes one device: one process, one split.
from model import ImageModel
from pytorch_lightning import Trainer
from sklearn.model_selection import train_test_split


def init_train_val_images(images):
    train, val = train_test_split(images, test_size=0.01)
    return train, val


def main():
    images = [f"img_{i}.png" for i in range(1000)]
    train, val = init_train_val_images(images)
    trainer = Trainer(max_epochs=10, devices=1, precision="16-mixed")
    trainer.fit(model=ImageModel(train, val))


if __name__ == "__main__":
    main()
