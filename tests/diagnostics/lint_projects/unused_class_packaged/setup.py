from setuptools import setup

setup(name="detection", py_modules=["trainer", "train"])
