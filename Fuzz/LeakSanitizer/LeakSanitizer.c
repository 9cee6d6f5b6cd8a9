// Nothing to compile: the module is its header (include/LeakSanitizer.h).
#include "LeakSanitizer.h"
