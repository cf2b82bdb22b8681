// Walking the Python stack of the thread that made a call, through CPython's public C API only,
// found with dlsym in the running process (the shim links no Python and works in any process).
//
// Why this cannot deadlock, and what guards it:
// - PyGILState_Ensure is the only call that can wait: for the GIL. It is re-entrant, so a thread
//   that already holds the GIL (Python code calling a library directly, ctypes) never waits.
// - A thread that has released the GIL (PyTorch does around its ops) waits for whoever holds
//   it. That is a deadlock only if the holder waits for something this thread holds. The shim
//   takes the location only at depth 0, in the program's own call, before or after the real
//   function runs (a failed kernel launch, copy or wait: after it and its CUBLASSPY_SYNC=all
//   synchronization returned): then this thread holds no lock of cuBLAS, the CUDA runtime or
//   the driver, nor the dynamic loader's (dlopen and other system calls never get a Python
//   location), nor any of the shim's (it holds none across calls). What remains is the program's own locks held
//   around a GEMM: a program that takes the GIL while holding them would deadlock by itself, and
//   PyTorch does take the GIL inside ops (Python dispatch, __torch_function__, hooks), so its
//   locks held around a GEMM are not ones a GIL holder waits for.
// - A thread without Python state (PyGILState_GetThisThreadState() is null: PyTorch's autograd
//   and other C++ worker threads) is skipped: Ensure would create a thread state for it.
// - While the interpreter finalizes (Py_IsFinalizing, _Py_IsFinalizing before 3.13), Ensure may
//   hang or end the thread: skipped. A finalization that begins between the check and Ensure
//   is the one window left; it needs a daemon thread failing a GEMM while the main thread exits.
// - Never from a signal handler (the fatal-signal path records native addresses only).
// References: PyEval_GetFrame is borrowed; PyFrame_GetBack, PyFrame_GetCode and each attribute
// are new references, released before moving on. The exception state is saved and restored, so
// the program's pending exception, if any, is untouched.
#include "python_stack.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>

namespace cublasspy {
namespace {

using PyObject = void;
using PyFrameObject = void;
using PyGILState_STATE = int;

struct PythonApi {
  int (*is_initialized)();
  int (*is_finalizing)();
  void* (*this_thread_state)();
  PyGILState_STATE (*gil_ensure)();
  void (*gil_release)(PyGILState_STATE);
  PyFrameObject* (*eval_get_frame)();
  PyFrameObject* (*frame_get_back)(PyFrameObject*);
  PyObject* (*frame_get_code)(PyFrameObject*);
  int (*frame_get_line)(PyFrameObject*);
  PyObject* (*get_attr)(PyObject*, const char*);
  const char* (*as_utf8)(PyObject*, long*);
  void (*dec_ref)(PyObject*);
  void (*err_fetch)(PyObject**, PyObject**, PyObject**);
  void (*err_restore)(PyObject*, PyObject*, PyObject*);
};

template <typename F>
bool find(F& out, const char* name) {
  out = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
  return out != nullptr;
}

// Looked up once: 0 unknown, 1 found, 2 not a Python process (or a Python before 3.9, which
// lacks PyFrame_GetBack and PyFrame_GetCode).
const PythonApi* python_api() {
  static std::atomic<int> state{0};
  static PythonApi api;
  int s = state.load(std::memory_order_acquire);
  if (s == 0) {
    PythonApi a{};
    const bool ok = find(a.is_initialized, "Py_IsInitialized") &&
                    (find(a.is_finalizing, "Py_IsFinalizing") || find(a.is_finalizing, "_Py_IsFinalizing")) &&
                    find(a.this_thread_state, "PyGILState_GetThisThreadState") &&
                    find(a.gil_ensure, "PyGILState_Ensure") && find(a.gil_release, "PyGILState_Release") &&
                    find(a.eval_get_frame, "PyEval_GetFrame") && find(a.frame_get_back, "PyFrame_GetBack") &&
                    find(a.frame_get_code, "PyFrame_GetCode") && find(a.frame_get_line, "PyFrame_GetLineNumber") &&
                    find(a.get_attr, "PyObject_GetAttrString") && find(a.as_utf8, "PyUnicode_AsUTF8AndSize") &&
                    find(a.dec_ref, "Py_DecRef") && find(a.err_fetch, "PyErr_Fetch") &&
                    find(a.err_restore, "PyErr_Restore");
    // Several threads may look at once: they find the same values.
    if (ok) api = a;
    s = ok ? 1 : 2;
    state.store(s, std::memory_order_release);
  }
  return s == 1 ? &api : nullptr;
}

// The text of attribute `name` of `code`, cut to `max` bytes (a path keeps its end).
bool put_attr(const PythonApi& py, StackEncoder& out, PyObject* code, const char* name, const char* fallback,
              uint32_t max, bool keep_end, uint16_t* len) {
  PyObject* value = py.get_attr(code, name);
  if (value == nullptr && fallback != nullptr) {
    PyObject *t, *v, *tb;
    py.err_fetch(&t, &v, &tb);  // the AttributeError of an older Python (co_qualname is 3.11)
    if (t) py.dec_ref(t);
    if (v) py.dec_ref(v);
    if (tb) py.dec_ref(tb);
    value = py.get_attr(code, fallback);
  }
  long size = 0;
  const char* text = value != nullptr ? py.as_utf8(value, &size) : nullptr;
  if (text == nullptr) size = 0;
  uint32_t n = static_cast<uint32_t>(size) > max ? max : static_cast<uint32_t>(size);
  const char* from = keep_end ? text + (size - n) : text;
  const bool ok = out.put(from, n);
  *len = ok ? static_cast<uint16_t>(n) : 0;
  if (value != nullptr) py.dec_ref(value);
  return ok;
}

}  // namespace

namespace {

// The API, when the calling thread may take the GIL to walk its frames (see the top).
const PythonApi* usable_python() {
  const PythonApi* api = python_api();
  if (api == nullptr) return nullptr;
  if (api->is_initialized() == 0 || api->is_finalizing() != 0 || api->this_thread_state() == nullptr) return nullptr;
  return api;
}

}  // namespace

bool take_python_site(uint64_t& code, int32_t& line) {
  const PythonApi* api = usable_python();
  if (api == nullptr) return false;
  const PythonApi& py = *api;
  const PyGILState_STATE gil = py.gil_ensure();
  // Neither call below raises: no exception state to save.
  PyFrameObject* frame = py.eval_get_frame();  // borrowed
  bool found = false;
  if (frame != nullptr) {
    PyObject* c = py.frame_get_code(frame);  // new reference
    if (c != nullptr) {
      code = reinterpret_cast<uint64_t>(c);
      line = py.frame_get_line(frame);
      py.dec_ref(c);  // the frame holds it: the address stays the code's while the frame runs
      found = true;
    }
  }
  py.gil_release(gil);
  return found;
}

bool take_python_stack(StackEncoder& out) {
  const PythonApi* api = usable_python();
  if (api == nullptr) return false;
  const PythonApi& py = *api;
  const PyGILState_STATE gil = py.gil_ensure();
  PyObject *saved_type, *saved_value, *saved_tb;
  py.err_fetch(&saved_type, &saved_value, &saved_tb);

  out.truncate(0);
  out.put_value<uint16_t>(0);  // frame count, set below
  out.put_value<uint16_t>(0);  // more
  uint16_t frames = 0;
  PyFrameObject* frame = py.eval_get_frame();  // borrowed
  PyFrameObject* owned = nullptr;              // the reference we hold, if any
  while (frame != nullptr && frames < kMaxPythonFrames) {
    const uint32_t start = out.used();
    PyObject* code = py.frame_get_code(frame);  // new reference
    bool ok = code != nullptr && out.put_value<int32_t>(py.frame_get_line(frame)) &&
              out.put_value<uint16_t>(0) && out.put_value<uint16_t>(0);
    uint16_t file_len = 0, function_len = 0;
    ok = ok && put_attr(py, out, code, "co_filename", nullptr, kStackFileBytes, true, &file_len) &&
         put_attr(py, out, code, "co_qualname", "co_name", kStackFunctionBytes, false, &function_len);
    if (code != nullptr) py.dec_ref(code);
    if (!ok) {
      out.truncate(start);
      break;
    }
    out.set_value<uint16_t>(start + 4, file_len);
    out.set_value<uint16_t>(start + 6, function_len);
    ++frames;
    PyFrameObject* back = py.frame_get_back(frame);  // new reference
    if (owned != nullptr) py.dec_ref(owned);
    owned = frame = back;
  }
  const bool more = frame != nullptr;
  if (owned != nullptr) py.dec_ref(owned);

  py.err_restore(saved_type, saved_value, saved_tb);
  py.gil_release(gil);
  out.set_value<uint16_t>(0, frames);
  out.set_value<uint16_t>(2, more ? 1 : 0);
  return frames != 0;
}

}  // namespace cublasspy
