// The objects the real functions found so far live in (real_functions.cpp), so that an unload
// forgets those functions only when one of their objects went: a program that loads and closes
// libraries of its own (a probe, a plug-in) keeps its CUDA functions found.
#pragma once

namespace cublasspy {

// `function`, just stored as a real function, lives in an object to watch (its load address and
// file name). Cold: once per function found. Lock-free.
void note_found_in(const void* function);

// Whether an object watched is no longer loaded where it was (closed, or another loaded at its
// place), or one was not known: then the watch starts again, empty, and the caller forgets every
// function found. False when nothing is watched.
bool found_objects_gone();

}  // namespace cublasspy
