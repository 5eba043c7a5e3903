class RoundRobin:
    """Batches from each loader in turn until all are spent."""

    def __init__(self, loaders):
        self.order = list(loaders)
        self.iterators = {name: iter(loader) for name, loader in loaders.items()}

    def __iter__(self):
        return self

    def __next__(self):
        while self.order:
            name = self.order.pop(0)
            try:
                batch = next(self.iterators[name])
            except StopIteration:
                continue
            self.order.append(name)
            return name, batch
        raise StopIteration
