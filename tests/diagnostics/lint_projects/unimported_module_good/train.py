from data_utils import prepare_data


def main(model, train_set, epochs):
    train_loader = prepare_data(train_set)
    for epoch in range(epochs):
        for x, y in train_loader:
            model(x, y).backward()
