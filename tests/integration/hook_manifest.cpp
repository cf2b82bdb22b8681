// Prints the name of every hook-list entry, one a line: what check_hook_coverage.py requires the
// shim to export, read from the list itself rather than copied into the script.
#include <cstdio>

#include "spec/hook_list.h"

#define CBS_PRINT_NAME(lib_, ret_, fn_, ...) std::puts(#fn_);

int main() {
  CUBLASSPY_ALL_HOOKS(CBS_PRINT_NAME)
  return 0;
}
