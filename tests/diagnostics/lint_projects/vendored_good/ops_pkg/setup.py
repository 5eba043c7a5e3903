from setuptools import setup

setup(name="ops")
