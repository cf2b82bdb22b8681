// A load that failed because of a CUDA library, recorded even when nothing else of CUDA ran:
// `import torch` dies in the dlopen of torch's own extension module when the libcublas it
// needs finds a libcublasLt of another release first. That dlopen names no CUDA library, so
// the dlopen hook leaves it alone; its error does, and reaches the program through dlerror().
#pragma once

namespace cublasspy {

// Called by the exported dlerror with glibc's text (non-null, naming a CUDA library). When the
// text is a load's failure (not a dlsym's), opens the trace if there is none and records it
// ("load.failed") with the library evidence of each CUDA soname it names ("load.library",
// docs/FORMAT.md); returns the text the program gets: `text`, or a copy of it when the
// recording made loader calls of its own (which free glibc's buffer). The copy lives until this
// thread's next recorded failure, as long as glibc's would have.
char* note_load_error(char* text);

// In a forked child, whose trace is its own: its failures record again.
void load_failures_after_fork();

}  // namespace cublasspy
