// The old libends_api.so (see ends_api.h): ends_api_new_function is not there yet.
#include "ends_api.h"

int ends_api_old_function(void) { return 0; }
