def build_dataset(n):
    return list(range(n))
