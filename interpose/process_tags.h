// The argument tags of the process's own hooks (arg_tags.h): library loads (dlopen_hook.cpp), the
// texts of failure codes (error_text_hooks.cpp) and replacing the image (exec_hooks.cpp).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <unistd.h>

#include "arg_tags.h"
#include "call_context.h"

namespace cublasspy::tags {

// The requested file name, as text over 16 slots (127 bytes); the outcome, the path loaded or
// dlerror()'s text, in a derived text of 16 slots, written after the call.
void describe_placeholders(format::FunctionEntry& entry, int count);
std::string loaded_path_or_error(const char* filename, bool failed);

struct LoadedFile : Plain<ArgKind::kText, ArgRole::kFilename> {
  static constexpr int kSlots = 16;
  static constexpr int kDerived = 16;
  static void describe(format::FunctionEntry& e, const char*) {
    describe_derived(e, "result", ArgKind::kText, ArgRole::kLoadResult);
    describe_placeholders(e, kDerived - 1);
  }
  static void put_text(CallContext& c, int s, int slots, const char* text) {
    char* dst = reinterpret_cast<char*>(&c.rec.args[s]);
    size_t room = static_cast<size_t>(slots) * 8 - 1;
    size_t n = text ? std::min(room, std::strlen(text)) : 0;
    if (n) std::memcpy(dst, text, n);
    std::memset(dst + n, 0, slots * 8 - n);
  }
  // The outcome's text fills every derived slot, at<0>(d) on.
  template <typename T> static void before(CallContext& c, int s, DerivedSlots<kDerived> d, T v) {
    put_text(c, s, kSlots, v);
    put_text(c, at<0>(d), kDerived, "");
  }
  template <typename T> static void after(CallContext& c, int, DerivedSlots<kDerived> d, T v, int status) {
    std::string outcome = loaded_path_or_error(v, status != 0);
    put_text(c, at<0>(d), kDerived, outcome.c_str());
  }
};

// --- The texts of failure codes (error_text_hooks.cpp) -------------------------------------------

// The failure code a program asked the text of, in its library's status words.
using ReportedStatus = Plain<ArgKind::kInt, ArgRole::kReportedStatus>;

// --- Replacing the image (exec_hooks.cpp) --------------------------------------------------------

// The program an exec replaces the image by, as text over 16 slots (127 bytes; a longer path
// keeps its beginning); and after an exec that returned (failed), its errno, in a derived slot.
// Nothing here allocates: an exec may follow a fork of a threaded program.
struct ExecTarget : Plain<ArgKind::kText, ArgRole::kExecTarget> {
  static constexpr int kSlots = 16;
  static constexpr int kDerived = 1;
  static void describe(format::FunctionEntry& e, const char*) {
    describe_derived(e, "errno", ArgKind::kInt, ArgRole::kNone);
  }
  static void put_target(CallContext& c, int s, const char* text) { LoadedFile::put_text(c, s, kSlots, text); }
  template <typename T> static void before(CallContext& c, int s, DerivedSlots<kDerived> d, T v) {
    put_target(c, s, v);
    c.rec.args[at<0>(d)] = 0;
  }
  // Right after the real call: errno is still the exec's.
  template <typename T> static void after(CallContext& c, int, DerivedSlots<kDerived> d, T, int status) {
    if (status != 0) c.rec.args[at<0>(d)] = static_cast<uint64_t>(errno);
  }
};

// fexecve's descriptor: the file it names, as /proc/self/fd gives it.
struct ExecFdTarget : ExecTarget {
  template <typename T> static void before(CallContext& c, int s, DerivedSlots<kDerived> d, T fd) {
    char link[32] = "/proc/self/fd/";
    char digits[12];
    int n = 0;
    for (unsigned v = static_cast<unsigned>(fd); n == 0 || v != 0; v /= 10) {
      digits[n++] = static_cast<char>('0' + v % 10);
    }
    size_t end = std::strlen(link);
    while (n > 0) link[end++] = digits[--n];
    link[end] = 0;
    char target[kSlots * 8];
    ssize_t got = fd >= 0 ? ::readlink(link, target, sizeof target - 1) : -1;
    target[got > 0 ? got : 0] = 0;
    put_target(c, s, got > 0 ? target : fd >= 0 ? link : "(no descriptor)");
    c.rec.args[at<0>(d)] = 0;
  }
};

}  // namespace cublasspy::tags
