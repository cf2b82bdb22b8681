// The new libends_api.so (see ends_api.h): both functions.
#include "ends_api.h"

int ends_api_old_function(void) { return 0; }
int ends_api_new_function(void) { return 0; }
