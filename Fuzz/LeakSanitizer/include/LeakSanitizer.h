// LeakSanitizer's interface (__lsan_disable, __lsan_enable), for FuzzSupport to mark what a
// fuzzing process sets up once for all its inputs. The functions live in the sanitizer runtime
// that -sanitize=address links in.
#include <sanitizer/lsan_interface.h>
