"""The `cublasspy` console script: becomes the native tool (exec), so its exit status, signals
and output are the tool's own and no Python process stays in between."""
import os
import sys

from . import tool_path


def main():
    tool = tool_path()
    try:
        os.execv(tool, ["cublasspy"] + sys.argv[1:])
    except OSError as e:
        sys.exit(f"cublasspy: cannot start {tool}: {e.strerror}")
