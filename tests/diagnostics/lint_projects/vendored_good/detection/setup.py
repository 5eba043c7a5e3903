from setuptools import setup

setup(name="mmdet", version="2.0.0")
