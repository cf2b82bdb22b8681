# The wheel holds native programs but no Python extension: it fits every Python 3 and is bound
# to the platform only through glibc, so it is tagged py3-none-<the floor's manylinux tag>
# (setuptools alone would call it pure, py3-none-any, or tie it to this Python's ABI).
import runpy

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel

PLATFORM_TAG = runpy.run_path("cublasspy/_version.py")["PLATFORM_TAG"]


class NativeProgramsDistribution(Distribution):
    def has_ext_modules(self):
        return True  # x86-64 Linux programs inside: platlib, not pure


class NativeProgramsWheel(bdist_wheel):
    def get_tag(self):
        return "py3", "none", PLATFORM_TAG


setup(distclass=NativeProgramsDistribution, cmdclass={"bdist_wheel": NativeProgramsWheel})
