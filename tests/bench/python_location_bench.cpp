// What taking a call's Python location costs (interpose/python_stack.cpp; the goal: at most
// 50 µs), alone, without the native walk that tests/pytorch/bench_locations.py measures with it.
// The process embeds CPython; a Python function nested N frames deep calls into C, where the
// benchmark loop runs, so the shim's code walks N real frames:
//   - GilHeld: the caller holds the GIL (Python code calling a library directly, ctypes);
//   - GilReleased: the caller released it, as PyTorch does around its ops, so each location
//     takes it again (PyGILState_Ensure), uncontended;
//   - TracebackExtractStack: the baseline, Python's own traceback.extract_stack(limit=16) over
//     the same frames, GIL held (what a Python-level tool would pay for the same answer).
// Each case checks that the location holds min(N, 16) frames.
//
//   python_location_bench [benchmark flags]
#include <Python.h>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "python_stack.h"

namespace {

enum class Mode : long { kGilHeld, kGilReleased, kTracebackExtractStack };

benchmark::State* g_state = nullptr;
PyObject* g_nest = nullptr;            // nest(depth, mode): calls measure(mode) `depth` frames deep
PyObject* g_extract_stack = nullptr;  // traceback.extract_stack
cublasspy::StackEncoder g_out;

uint16_t frames_taken() {
  uint16_t n = 0;
  std::memcpy(&n, g_out.data(), sizeof n);
  return n;
}

// cbs_bench.measure(mode): the benchmark loop, run inside the nested Python frames.
PyObject* measure(PyObject*, PyObject* arg) {
  benchmark::State& state = *g_state;
  const auto mode = static_cast<Mode>(PyLong_AsLong(arg));
  bool taken = true;
  switch (mode) {
    case Mode::kGilHeld:
      for (auto _ : state) taken = cublasspy::take_python_stack(g_out) && taken;
      break;
    case Mode::kGilReleased:
      Py_BEGIN_ALLOW_THREADS;
      for (auto _ : state) taken = cublasspy::take_python_stack(g_out) && taken;
      Py_END_ALLOW_THREADS;
      break;
    case Mode::kTracebackExtractStack: {
      PyObject* kwargs = Py_BuildValue("{s:i}", "limit", static_cast<int>(cublasspy::kMaxPythonFrames));
      PyObject* no_args = PyTuple_New(0);
      for (auto _ : state) {
        PyObject* stack = PyObject_Call(g_extract_stack, no_args, kwargs);
        taken = stack != nullptr && taken;
        Py_XDECREF(stack);
      }
      Py_DECREF(no_args);
      Py_DECREF(kwargs);
      if (!taken) return nullptr;
      Py_RETURN_NONE;
    }
  }
  if (!taken) {
    state.SkipWithError("take_python_stack took no location");
  } else if (frames_taken() != std::min<int64_t>(state.range(0), cublasspy::kMaxPythonFrames)) {
    state.SkipWithError("the location does not hold the frames the caller is nested in");
  }
  Py_RETURN_NONE;
}

PyMethodDef g_methods[] = {{"measure", measure, METH_O, nullptr}, {nullptr, nullptr, 0, nullptr}};
PyModuleDef g_module = {PyModuleDef_HEAD_INIT, "cbs_bench", nullptr, -1, g_methods,
                        nullptr, nullptr, nullptr, nullptr};
PyObject* init_module() { return PyModule_Create(&g_module); }

constexpr const char* kNest = R"(
import cbs_bench
def nest(depth, mode):
    if depth <= 1:
        return cbs_bench.measure(mode)
    return nest(depth - 1, mode)
)";

void run(benchmark::State& state, Mode mode) {
  g_state = &state;
  PyObject* r = PyObject_CallFunction(g_nest, "il", static_cast<int>(state.range(0)), static_cast<long>(mode));
  if (r == nullptr) {
    PyErr_Print();
    state.SkipWithError("the Python side failed");
    return;
  }
  Py_DECREF(r);
}

void BM_PythonLocation_GilHeld(benchmark::State& state) { run(state, Mode::kGilHeld); }
void BM_PythonLocation_GilReleased(benchmark::State& state) { run(state, Mode::kGilReleased); }
void BM_TracebackExtractStack(benchmark::State& state) { run(state, Mode::kTracebackExtractStack); }
BENCHMARK(BM_PythonLocation_GilHeld)->Arg(3)->Arg(16)->Arg(32);
BENCHMARK(BM_PythonLocation_GilReleased)->Arg(3)->Arg(16)->Arg(32);
BENCHMARK(BM_TracebackExtractStack)->Arg(3)->Arg(16)->Arg(32);

// The Python side: the module, nest() and traceback.extract_stack. False (with Python's error
// printed) when any is missing.
bool set_up_python() {
  if (PyImport_AppendInittab("cbs_bench", init_module) != 0) return false;
  Py_InitializeEx(0);
  PyObject* globals = PyDict_New();
  PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins());
  PyObject* r = PyRun_String(kNest, Py_file_input, globals, globals);
  if (r == nullptr) {
    PyErr_Print();
    return false;
  }
  Py_DECREF(r);
  g_nest = PyDict_GetItemString(globals, "nest");  // borrowed; globals lives on
  PyObject* traceback = PyImport_ImportModule("traceback");
  g_extract_stack = traceback != nullptr ? PyObject_GetAttrString(traceback, "extract_stack") : nullptr;
  if (g_nest == nullptr || g_extract_stack == nullptr) {
    PyErr_Print();
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (!set_up_python()) return 1;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return Py_FinalizeEx() == 0 ? 0 : 1;
}
