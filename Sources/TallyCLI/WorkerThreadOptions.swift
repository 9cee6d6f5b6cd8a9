import ArgumentParser
import TallyProtocol

/// `--concurrency` and `--capacity`, declared once: the MDP workers (threads) of a worker process
/// and the requests each takes at once, for `tally worker` and for the workers `tally up` starts,
/// so both check them alike before any process starts.
struct WorkerThreadOptions: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.concurrency.help(
            "MDP workers (threads) in each worker process (default: one per core; one for accounts, shopping and roster, whose writes take turns anyway)."
        ))
    var concurrency: Int?

    /// The threads asked for, by the flag or else the environment; nil for each service's
    /// default (`ServiceHandler.defaultConcurrency`).
    var threadsAskedFor: Int? { concurrency ?? EnvironmentDefaults.concurrency.value }

    @Option(help: EnvironmentDefaults.capacity.help("Requests each MDP worker takes at once; 1 is plain 7/MDP."))
    var capacity: Int = EnvironmentDefaults.capacity.value

    func validate() throws {
        if let threads = threadsAskedFor, !(1...256).contains(threads) { throw ValidationError("--concurrency must be from 1 to 256") }
        guard (1...Majordomo.maximumCapacity).contains(capacity) else {
            throw ValidationError("--capacity must be from 1 to \(Majordomo.maximumCapacity)")
        }
    }

    /// The same settings as flags, for child processes.
    var arguments: [String] { (threadsAskedFor.map { ["--concurrency", "\($0)"] } ?? []) + ["--capacity", "\(capacity)"] }
}
