/* Calls puts, for the RTLD_NEXT test (puts_wrapper.c). */
#include <stdio.h>

int main(void) {
  puts("hello");
  return 0;
}
