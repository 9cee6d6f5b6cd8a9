#if TALLY_FAULT_INJECTION
import ArgumentParser
import TallyWorker

/// `tally worker`'s fault-injection flags, for integration tests (see `FaultInjection`). Hidden
/// from help, and compiled only into debug builds: a release `tally` does not know them.
struct FaultOptions: ParsableArguments {
    @Option(help: .hidden)
    var handlingDelayMs: Int = 0

    @Flag(help: .hidden)
    var exitAfterCommit = false

    @Option(help: .hidden)
    var currencyLoadDelayMs: Int = 0

    @Option(help: .hidden)
    var currencyLoadGate: String?

    var faults: FaultInjection {
        FaultInjection(
            handlingDelay: .milliseconds(handlingDelayMs), exitAfterCommit: exitAfterCommit,
            currencyLoadDelay: .milliseconds(currencyLoadDelayMs), currencyLoadGate: currencyLoadGate)
    }
}
#endif
