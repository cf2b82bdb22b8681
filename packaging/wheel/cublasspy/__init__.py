"""cublasspy: the LD_PRELOAD shim and the `cublasspy` CLI, shipped inside this package.

`cublasspy run -- python train.py` (or `python -m cublasspy run -- ...`) runs the native tool in
bin/, which finds the shim in lib/ next to it. shim_path() is for setting LD_PRELOAD by hand.
"""
import os

from ._version import __version__

_HERE = os.path.dirname(os.path.abspath(__file__))


def tool_path():
    """The native `cublasspy` program inside this package."""
    return os.path.join(_HERE, "bin", "cublasspy")


def shim_path():
    """libcublasspy.so inside this package, for LD_PRELOAD."""
    return os.path.join(_HERE, "lib", "libcublasspy.so")


__all__ = ["__version__", "tool_path", "shim_path"]
