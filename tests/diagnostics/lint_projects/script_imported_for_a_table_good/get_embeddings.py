"""Embeds the topics with the classifier's processors."""

from run_classify import PROCESSORS, get_processor

if __name__ == "__main__":
    print(sorted(PROCESSORS), get_processor("stance")("A"))
