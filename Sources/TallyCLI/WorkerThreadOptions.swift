import ArgumentParser
import TallyProtocol

/// `--concurrency` and `--capacity`, declared once: the MDP workers (threads) of a worker process
/// and the requests each takes at once, for `tally worker` and for the workers `tally up` starts,
/// so both check them alike before any process starts.
struct WorkerThreadOptions: ParsableArguments {
    @Option(help: EnvironmentDefaults.concurrency.help("MDP workers (threads) in each worker process (default: one per core)."))
    var concurrency: Int = EnvironmentDefaults.concurrency.value

    @Option(help: EnvironmentDefaults.capacity.help("Requests each MDP worker takes at once; 1 is plain 7/MDP."))
    var capacity: Int = EnvironmentDefaults.capacity.value

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be from 1 to 256") }
        guard (1...Majordomo.maximumCapacity).contains(capacity) else {
            throw ValidationError("--capacity must be from 1 to \(Majordomo.maximumCapacity)")
        }
    }

    /// The same settings as flags, for child processes.
    var arguments: [String] { ["--concurrency", "\(concurrency)", "--capacity", "\(capacity)"] }
}
