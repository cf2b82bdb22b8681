"""`import torch` stopped by a libcublasLt of another release: the NOT_INITIALIZED report's
conda/pip/system CUDA mixed through LD_LIBRARY_PATH, in the form the field sees first.

A libcublasLt.so.12 that reports 12.1.3 and lacks one entry point the root's real libcublas.so.12
(12.4.5.8) imports, cublasLtHHHMatmul, is built here from what that libcublas imports and put on
LD_LIBRARY_PATH. `import torch` then fails in the dlopen of torch's extension module, which names
no CUDA library; its error does. Under the shim the failure must leave a trace whose report says
cublas-lt-mismatch (error) with both files, their directories and versions, the missing symbol
and the setting that put the odd one first; `cublasspy run` must say it; `cublasspy doctor
--python` must tie the import failure to that copy and list it first.
Usage: test_import_failures.py <repository root> <build directory>
"""
import json
import os
import subprocess
import sys

from scenario import Scenario, diagnosis

ROOT = os.environ.get("CUBLASSPY_PYTORCH_ROOT", "/var/cache/cublasspy/pytorch-root")
LIBDIR = "/usr/lib/x86_64-linux-gnu"
MISSING = "cublasLtHHHMatmul"
PROGRAM = "import torch\nprint('imported', torch.__version__)\n"


def imported_from_lt(libcublas):
    """The symbols libcublas imports under libcublasLt.so.12's version node."""
    out = subprocess.run(["nm", "-D", "--undefined-only", libcublas], capture_output=True, text=True, check=True)
    names = [line.split()[-1].split("@")[0] for line in out.stdout.splitlines() if "@libcublasLt.so.12" in line]
    if MISSING not in names or "cublasLtGetVersion" not in names:
        sys.exit(f"FAIL: {libcublas} does not import {MISSING} and cublasLtGetVersion from libcublasLt.so.12")
    return names


def build_old_lt(directory):
    """libcublasLt.so.12.1.3.1 (soname libcublasLt.so.12, version node libcublasLt.so.12):
    cublasLtGetVersion returns 120103, every other import of libcublas is there but one."""
    os.makedirs(directory, exist_ok=True)
    names = imported_from_lt(os.path.join(ROOT, LIBDIR.lstrip("/"), "libcublas.so.12"))
    source = os.path.join(directory, "old_lt.c")
    with open(source, "w") as f:
        f.write("#include <stddef.h>\n")
        for name in names:
            if name == "cublasLtGetVersion":
                f.write("size_t cublasLtGetVersion(void) { return 120103; }\n")
            elif name != MISSING:
                f.write(f"int {name}(void) {{ return 3; }}\n")  # CUBLAS_STATUS_ALLOC_FAILED, never reached
    script = os.path.join(directory, "old_lt.map")
    with open(script, "w") as f:
        f.write("libcublasLt.so.12 { global: *; };\n")
    real = os.path.join(directory, "libcublasLt.so.12.1.3.1")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", real, source, "-Wl,-soname,libcublasLt.so.12",
                    "-Wl,--version-script=" + script], check=True)
    os.symlink("libcublasLt.so.12.1.3.1", os.path.join(directory, "libcublasLt.so.12"))
    exported = subprocess.run(["nm", "-D", "--defined-only", real], capture_output=True, text=True, check=True).stdout
    if "cublasLtGetVersion@@libcublasLt.so.12" not in exported or f" {MISSING}@" in exported:
        sys.exit("FAIL: the old libcublasLt was not built as intended:\n" + exported[:500])


def check_report(s, report, old):
    """The report of the traced import: the finding, its words, its place."""
    found = diagnosis(report, "cublas-lt-mismatch") or {}
    words = found.get("summary", "") + " " + found.get("evidence", "")
    print("finding:", json.dumps(found, indent=1))
    s.check("cublas-lt-mismatch is an error", found.get("severity") == "error", [(d["id"], d["severity"]) for d in report["diagnoses"]])
    s.check("it names the odd copy with its directory and version",
            os.path.join(old, "libcublasLt.so.12") in words and "12.1.3.1" in words, words)
    s.check("it names libcublas's own copy with its directory and version",
            "x86_64-linux-gnu/libcublasLt.so.12 " in words and "12.4.5.8" in words, words)
    s.check("it names the missing symbol", MISSING in words, words)
    s.check("it names the setting that put the odd copy first", f"LD_LIBRARY_PATH={old}" in words, words)
    s.check("it is the first finding", report["diagnoses"][:1] and report["diagnoses"][0]["id"] == "cublas-lt-mismatch",
            [d["id"] for d in report["diagnoses"]])


def main():
    s = Scenario(sys.argv[1], sys.argv[2])
    old = os.path.join(s.work, "old-cublaslt")
    build_old_lt(old)
    env = {"LD_LIBRARY_PATH": old}

    shim, plain = s.parallel(lambda: s.torch(PROGRAM, standin=False, env=env),
                             lambda: s.torch(PROGRAM, standin=False, shim=False, env=env))
    field_error = f"libcublas.so.12: undefined symbol: {MISSING}, version libcublasLt.so.12"
    s.check("import torch fails as in the field", plain.rc != 0 and "ImportError" in plain.stderr and
            field_error in plain.stderr, plain.stderr[-400:])
    strip = lambda run: run.stderr.replace(run.trace_dir, "DIR")
    s.check("the same failure with the shim", shim.rc == plain.rc and strip(shim) == strip(plain), shim.stderr[-400:])
    s.check("the failure leaves a trace", len(shim.traces) == 1, shim.traces)
    if shim.traces:
        check_report(s, s.report(*shim.traces), old)

    # cublasspy run: the summary on stderr says it.
    run_dir = os.path.join(s.work, "run-traces")
    os.makedirs(run_dir, exist_ok=True)
    run = subprocess.run(s.root_command([s.cli, "run", "--", "python3", "-c", PROGRAM], standin=False,
                                        env={**env, "CUBLASSPY_TRACE": os.path.join(run_dir, "t-%p.cbt")}),
                         capture_output=True, text=True, timeout=240)
    s.check("cublasspy run keeps the program's status", run.returncode == plain.rc, run.returncode)
    s.check("cublasspy run's summary names the mismatch and the odd copy",
            "cublas-lt-mismatch" in run.stderr and os.path.join(old, "libcublasLt.so.12") in run.stderr, run.stderr[-1500:])

    # doctor --python, in the root with the same LD_LIBRARY_PATH: the import failure tied to the copy.
    doc = subprocess.run(s.root_command([s.cli, "doctor", "--json", "--python", "python3"], standin=False, env=env),
                         capture_output=True, text=True, timeout=240)
    answer = json.loads(doc.stdout or "{}")
    torch_lines = [c["detail"] for c in answer.get("checks", []) if c["name"] == "torch"]
    s.check("doctor --python ties the import failure to the mismatch",
            len(torch_lines) == 1 and MISSING in torch_lines[0] and "cublas-lt-mismatch" in torch_lines[0], torch_lines)
    ids = [d["id"] for d in answer.get("diagnoses", [])]
    s.check("doctor lists the mismatch first", ids[:1] == ["cublas-lt-mismatch"], ids)
    first = (answer.get("diagnoses") or [{}])[0]
    doctor_words = first.get("summary", "") + " " + first.get("evidence", "")
    s.check("doctor's finding names both copies, the symbol and the setting",
            all(w in doctor_words for w in (os.path.join(old, "libcublasLt.so.12"), "12.1.3.1", "x86_64-linux-gnu/libcublasLt.so.12 ",
                                             MISSING, f"LD_LIBRARY_PATH={old}")), doctor_words)
    text = subprocess.run(s.root_command([s.cli, "doctor", "--color", "never", "--python", "python3"], standin=False, env=env),
                          capture_output=True, text=True, timeout=240).stdout
    at = lambda ident: text.find(ident) if ident in text else len(text) + 1
    s.check("doctor's text puts the mismatch ahead of the kernel module",
            "cublas-lt-mismatch" in text and at("cublas-lt-mismatch") < at("kernel-module-not-loaded"), text[-2000:])
    return s.finish()


if __name__ == "__main__":
    sys.exit(main())
