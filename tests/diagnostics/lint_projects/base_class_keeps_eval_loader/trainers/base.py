class Trainer:
    def __init__(self, model, train_loader, val_loader, num_epochs):
        self.model = model
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.num_epochs = num_epochs
