#ifndef TALLY_CZEROMQ_SHIM_H
#define TALLY_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
