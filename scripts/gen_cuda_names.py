#!/usr/bin/env python3
"""The CUDA vocabulary's tables, read from the CUDA toolkit's headers.

src/common/cuda_names.inc holds, for each enum the report, the shim and replay name values of
(cudaDataType, cublasComputeType_t, cudaError_t, CUresult, cublasStatus_t, the cuBLASLt
attributes, epilogues and orders, cublasGemmAlgo_t, cublasMath_t), one row per enumerator:

    CUBLASSPY_NAME(kCuResult, 100, "CUDA_ERROR_NO_DEVICE")  // 12.6 13.0

and CUBLASSPY_ALIAS rows for the other spellings of a value (CUDA_R_8F_UE4M3 = CUDA_R_8F_E4M3).
The comment lists the toolkits whose headers have the row: the table is the union of every
toolkit it was generated from, since a trace names the values of whatever CUDA the traced
program used, not the one cublasspy was built with. The file is committed; the build never
writes it.

    gen_cuda_names.py table [--merge INC] INCLUDE_DIR...   print the table (the union of the
                                                           toolkits; --merge keeps INC's rows)
    gen_cuda_names.py check INC INCLUDE_DIR                exit 1 unless INC is what `table
                                                           --merge INC` gives for INCLUDE_DIR
    gen_cuda_names.py enumerators INCLUDE_DIR OUT          write CUBLASSPY_ENUMERATOR(set, NAME)
                                                           for every enumerator to OUT (the unit
                                                           test compiles it against the headers)

To add a toolkit's names: scripts/gen_cuda_names.py table --merge src/common/cuda_names.inc
/usr/local/cuda/include > /tmp/t && mv /tmp/t src/common/cuda_names.inc.
"""
import re
import sys

# (set, header, how the enum is found): ("typedef", NAME) for `typedef enum ... { } NAME;`,
# ("tag", TAG) for `enum [__device_builtin__] TAG { };`. The set names are NameSet's
# (src/common/cuda_names.h).
ENUMS = [
    ("kDataType", "library_types.h", ("typedef", "cudaDataType")),
    ("kComputeType", "cublas_api.h", ("typedef", "cublasComputeType_t")),
    ("kCudaError", "driver_types.h", ("tag", "cudaError")),
    ("kCuResult", "cuda.h", ("typedef", "CUresult")),
    ("kCublasStatus", "cublas_api.h", ("typedef", "cublasStatus_t")),
    ("kGemmAlgo", "cublas_api.h", ("typedef", "cublasGemmAlgo_t")),
    ("kMathMode", "cublas_api.h", ("typedef", "cublasMath_t")),
    ("kLtMatmulDescAttribute", "cublasLt.h", ("typedef", "cublasLtMatmulDescAttributes_t")),
    ("kLtMatrixLayoutAttribute", "cublasLt.h", ("typedef", "cublasLtMatrixLayoutAttribute_t")),
    ("kLtPreferenceAttribute", "cublasLt.h", ("typedef", "cublasLtMatmulPreferenceAttributes_t")),
    ("kLtEpilogue", "cublasLt.h", ("typedef", "cublasLtEpilogue_t")),
    ("kLtOrder", "cublasLt.h", ("typedef", "cublasLtOrder_t")),
    ("kLtAlgoConfigAttribute", "cublasLt.h", ("typedef", "cublasLtMatmulAlgoConfigAttributes_t")),
    ("kLtAlgoCapAttribute", "cublasLt.h", ("typedef", "cublasLtMatmulAlgoCapAttributes_t")),
    ("kLtTransformDescAttribute", "cublasLt.h", ("typedef", "cublasLtMatrixTransformDescAttributes_t")),
    ("kLtEmulationDescAttribute", "cublasLt.h", ("typedef", "cublasLtEmulationDescAttributes_t"), "13.0"),
    ("kEmulationStrategy", "cublas_api.h", ("typedef", "cublasEmulationStrategy_t"), "13.0"),
    ("kEmulationSpecialValues", "library_types.h", ("typedef", "cudaEmulationSpecialValuesSupport"), "13.0"),
    ("kEmulationMantissaControl", "library_types.h", ("typedef", "cudaEmulationMantissaControl"), "13.0"),
    ("kLtMatmulTile", "cublasLt.h", ("typedef", "cublasLtMatmulTile_t")),
    ("kLtMatmulStages", "cublasLt.h", ("typedef", "cublasLtMatmulStages_t")),
    ("kLtReductionScheme", "cublasLt.h", ("typedef", "cublasLtReductionScheme_t")),
    ("kLtInnerShape", "cublasLt.h", ("typedef", "cublasLtMatmulInnerShape_t")),
    ("kLtClusterShape", "cublasLt.h", ("typedef", "cublasLtClusterShape_t")),
]
SET_ORDER = [e[0] for e in ENUMS]

# Deprecated spellings that the header lists before the current one of the same value.
DEPRECATED = {"CUBLAS_GEMM_DFALT", "CUBLAS_GEMM_DFALT_TENSOR_OP"}

ROW = re.compile(r'^CUBLASSPY_(NAME|ALIAS)\((\w+), (-?\d+), "(\w+)"\)  // ([\d. ]+)$')


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def enum_body(text, how, where):
    kind, name = how
    if kind == "typedef":
        end = re.search(r"\}\s*" + re.escape(name) + r"\s*;", text)
        if not end:
            sys.exit(f"gen_cuda_names: no `}} {name};` in {where}")
        close = end.start()
        return text[text.rindex("{", 0, close) + 1:close]
    start = re.search(r"\benum\s+(?:__device_builtin__\s+)?" + re.escape(name) + r"\s*\{", text)
    if not start:
        sys.exit(f"gen_cuda_names: no `enum {name} {{` in {where}")
    return text[start.end():text.index("}", start.end())]


def evaluate(expr, known, where):
    """An enumerator's initializer: integers (hex, suffixes), earlier names, | << + - ~ ( )."""
    python = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", expr)
    python = re.sub(r"\b[A-Za-z_]\w*\b",
                    lambda m: str(known[m.group(0)]) if m.group(0) in known else m.group(0), python)
    if not re.fullmatch(r"[0-9a-fA-FxX|&<>+\-~() ]*", python):
        sys.exit(f"gen_cuda_names: cannot evaluate `{expr}` in {where}")
    return int(eval(python))  # only digits and operators remain


def parse_enum(body, where):
    """[(name, value, is_alias)] in header order."""
    rows, known, next_value = [], {}, 0
    for item in body.split(","):
        item = " ".join(item.split())
        if not item:
            continue
        name, _, expr = (part.strip() for part in item.partition("="))
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            sys.exit(f"gen_cuda_names: unexpected `{item}` in {where}")
        value = evaluate(expr, known, where) if expr else next_value
        # Another spelling: written as another enumerator, or a value an earlier one has.
        alias = bool(expr) and expr in known or value in known.values()
        known[name] = value
        next_value = value + 1
        # A count (CUBLASLT_MATMUL_TILE_END): the next release gives its value to a real one.
        if name.endswith("_END"):
            continue
        rows.append((name, value, alias))
    # The current spelling of a value is its first, unless that one is a deprecated one.
    for i, (name, value, alias) in enumerate(rows):
        if name in DEPRECATED and not alias:
            later = next(j for j in range(i + 1, len(rows)) if rows[j][1] == value)
            rows[i], rows[later] = (name, value, True), (rows[later][0], value, False)
    return rows


def toolkit_version(include_dir):
    text = open(f"{include_dir}/cuda.h", encoding="utf-8", errors="replace").read()
    v = int(re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text).group(1))
    return f"{v // 1000}.{v % 1000 // 10}"


def parse_toolkit(include_dir):
    """{(set, value, name): is_alias} for one toolkit."""
    out, texts = {}, {}
    version = toolkit_version(include_dir)
    # A fourth element: the first toolkit whose headers declare the enum (older ones lack it).
    for name_set, header, how, *since in ENUMS:
        if since and version_key(version) < version_key(since[0]):
            continue
        if header not in texts:
            raw = open(f"{include_dir}/{header}", encoding="utf-8", errors="replace").read()
            texts[header] = strip_comments(raw)
        for name, value, alias in parse_enum(enum_body(texts[header], how, header), f"{include_dir}/{header}"):
            out[(name_set, value, name)] = alias
    return out


def read_table(path):
    """{(set, value, name): [is_alias, {versions}]} from a generated table."""
    rows = {}
    for line in open(path, encoding="utf-8"):
        m = ROW.match(line.rstrip("\n"))
        if m:
            rows[(m.group(2), int(m.group(3)), m.group(4))] = [m.group(1) == "ALIAS", set(m.group(5).split())]
    return rows


def add_toolkit(rows, include_dir):
    version = toolkit_version(include_dir)
    for key, alias in parse_toolkit(include_dir).items():
        entry = rows.setdefault(key, [alias, set()])
        entry[0] = entry[0] and alias  # a current spelling in any toolkit stays one
        entry[1].add(version)


def version_key(v):
    return tuple(int(p) for p in v.split("."))


def check_meanings(rows):
    """A value that two toolkits name differently (neither an alias) needs a person's care."""
    current = {}
    for (name_set, value, name), (alias, _) in rows.items():
        if not alias:
            current.setdefault((name_set, value), []).append(name)
    clashes = {k: v for k, v in current.items() if len(v) > 1}
    for (name_set, value), names in sorted(clashes.items()):
        print(f"gen_cuda_names: {name_set} {value} has two current names: {', '.join(sorted(names))}",
              file=sys.stderr)
    if clashes:
        sys.exit(1)


def render(rows):
    check_meanings(rows)
    lines = [
        "// The CUDA vocabulary: every enumerator of the enums in NameSet (cuda_names.h), read from",
        "// the CUDA headers of the toolkits named after each row. Generated by",
        "// scripts/gen_cuda_names.py; do not edit (ctest -R common.cuda_names_current checks it).",
        "// CUBLASSPY_NAME: the name a value prints as; CUBLASSPY_ALIAS: another spelling of it.",
    ]
    def order(item):
        (name_set, value, name), (alias, _) = item
        return (SET_ORDER.index(name_set), value, alias, name)
    for (name_set, value, name), (alias, versions) in sorted(rows.items(), key=order):
        tags = " ".join(sorted(versions, key=version_key))
        lines.append(f'CUBLASSPY_{"ALIAS" if alias else "NAME"}({name_set}, {value}, "{name}")  // {tags}')
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) >= 2 and argv[0] == "table":
        rows, dirs = {}, argv[1:]
        if dirs[0] == "--merge":
            rows, dirs = read_table(dirs[1]), dirs[2:]
        for d in dirs:
            add_toolkit(rows, d)
        sys.stdout.write(render(rows))
        return 0
    if len(argv) == 3 and argv[0] == "check":
        committed_path, include_dir = argv[1], argv[2]
        committed = open(committed_path, encoding="utf-8").read()
        # Forget what the committed table says about this toolkit, then read it again.
        version = toolkit_version(include_dir)
        rows = {}
        for key, (alias, versions) in read_table(committed_path).items():
            if versions - {version}:
                rows[key] = [alias, versions - {version}]
        add_toolkit(rows, include_dir)
        fresh = render(rows)
        if fresh == committed:
            print(f"{committed_path} holds every name of the CUDA {version} headers in {include_dir}")
            return 0
        import difflib
        sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True),
                                                   committed_path, "regenerated"))
        print(f"\n{committed_path} is not what the CUDA {version} headers give; regenerate it:\n"
              f"  scripts/gen_cuda_names.py table --merge {committed_path} {include_dir}", file=sys.stderr)
        return 1
    if len(argv) == 3 and argv[0] == "enumerators":
        lines = ["// Every enumerator of the NameSet enums in the toolkit this build uses, generated at",
                 "// build time by scripts/gen_cuda_names.py; the compiler gives their values."]
        lines += [f"CUBLASSPY_ENUMERATOR({name_set}, {name})" for (name_set, _, name) in parse_toolkit(argv[1])]
        with open(argv[2], "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
