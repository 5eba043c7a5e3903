from setuptools import setup

setup(name="copied")
