// The on-disk layout of a cublasspy trace (.cbt), in the parts this file includes (format_*.h,
// one a section of the file). docs/FORMAT.md is their prose version; every struct there is
// pinned with static_asserts, and tests/unit/format_doc_test.cpp checks the page's tables
// (offsets, sizes, enum values, constants) against them.
//
// A trace is one memory-mapped file, written in place while the process runs. Nothing is ever
// "flushed": a process killed with SIGKILL leaves a file the reader can open, because every
// byte the shim wrote is already in the page cache. The file is, in this order (docs/FORMAT.md,
// "Layout", gives each section's offset field and size):
//
//   [FileHeader 4 KiB][ProcessSection 64 KiB][FunctionTable][Counters]
//   [unchanged setters' counts][first-failure RecordSlot][FailureSite table][ring of RecordSlots]
//   [launch ring of LaunchEntries][KernelEntry table][launch count tables][side area]
//
// The launch ring, kernel table and launch count tables are there when their offsets are
// nonzero, the side area when its size is, and each only from the version that added it: the
// unchanged setters' counts 10, the failure sites 9, the launch count tables 6, the launch
// ring, kernel table and side area 4.
// Offsets live in the header so a reader never assumes them. Integers are little-endian
// (the header's endian mark says so), all fields are naturally aligned.
#pragma once

// The format's parts, in the order of their dependencies; a user includes this file.
#include "trace/format_common.h"       // magic, version table, sizes, end states, the record word
#include "trace/format_functions.h"    // the function table: functions, argument kinds and roles
#include "trace/format_record.h"       // a record, its ring slot, the failure-site table
#include "trace/format_side_area.h"    // the side area and the grouped GEMM's entry
#include "trace/format_file_header.h"  // the header and the per-function counters
#include "trace/format_launches.h"     // the launch ring, kernel table and launch count tables
