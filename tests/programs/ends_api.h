// A library in two versions (tests/programs/ends_api_*.c, both libends_api.so): process_end
// is linked against the new one, with lazy binding, and run against the old one, which lacks
// ends_api_new_function: calling it is a real "symbol lookup error" from the dynamic linker.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif
int ends_api_old_function(void);
int ends_api_new_function(void);
#ifdef __cplusplus
}
#endif
