# Names no loader or dataset: the split is in a function main calls, and the trainer names
# no devices, so Lightning 2.x runs DDP on every visible GPU and reruns this script in each
# process: each draws its own split.
from model import ImageModel
from pytorch_lightning import Trainer
from sklearn.model_selection import train_test_split


def init_train_val_images(images):
    train, val = train_test_split(images, test_size=0.01)  # expect: FS110
    return train, val


def main():
    images = [f"img_{i}.png" for i in range(1000)]
    train, val = init_train_val_images(images)
    trainer = Trainer(max_epochs=10, precision="16-mixed")
    trainer.fit(model=ImageModel(train, val))


if __name__ == "__main__":
    main()
