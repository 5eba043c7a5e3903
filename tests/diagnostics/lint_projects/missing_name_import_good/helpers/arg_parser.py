"""Only get_parser: the script below asks for parse_args, which is not here."""

import argparse


def get_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    return parser
