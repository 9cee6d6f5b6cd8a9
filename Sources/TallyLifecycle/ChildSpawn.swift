import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How Tally starts programs, `tally up`'s children and the tests' alike: `posix_spawn`, with the
/// child closing every descriptor above standard error itself, rather than Foundation's `Process`.
///
/// Why not `Process.run()`: on Linux it lists `/proc/self/fd` to close the parent's descriptors
/// in the child, and Swift 6.3's Foundation reads past its buffer doing so once a process holds
/// about 1,300 descriptors. An integration run holds up to 1,550 (every live child's
/// descriptors, every stack's ZeroMQ context and sockets), and the whole test process died in
/// `run()` with SIGSEGV, now and then. And a second `run()` on another thread at the same moment
/// made its socket pair after that listing, so a long-lived child inherited the end another
/// child's exit was to be noticed by (a test waited 90 s for a one-shot command that had long
/// finished). Here the list is never made: the child closes from 3 up
/// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34), so nothing this process holds,
/// whichever thread opened it, leaks into a child (a leaked pipe or socket would keep a peer from
/// seeing end of file, and an exit from being noticed), and no lock is needed around a start.
public enum ChildSpawn {
    /// How a child ended, as Foundation's `terminationStatus` says it: its exit code, or the
    /// signal that ended it.
    public struct Termination: Sendable, Equatable {
        public let status: Int32
        public let signaled: Bool
        public var succeeded: Bool { status == 0 && !signaled }

        public init(status: Int32, signaled: Bool) {
            self.status = status
            self.signaled = signaled
        }
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Starts `argv[0]` (a path) with `argv`, in `environment` (this process's when nil), standard
    /// input from the file `input` (or /dev/null), standard output into the file `output` and
    /// standard error into `errors` or, when nil, `output` too (each made or emptied). Returns
    /// the child's pid; `wait(for:)` reaps it.
    public static func start(
        _ argv: [String], environment: [String: String]? = nil, input: String? = nil, output: String, errors: String? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        closeAboveStandardError(&actions)
        return try spawn(argv, environment: environment, &actions)
    }

    /// Starts `argv[0]` (a path) with `argv`, in `environment`, standard input from /dev/null and
    /// standard output and error on a new pipe, whose read end it returns (close it when done):
    /// how `tally up` prefixes each child's output with its name. Only this child gets its write end (as its standard output and error), so the reader
    /// sees end of file once the child (and anything it started that kept them) has exited.
    public static func startWithOutputPipe(_ argv: [String], environment: [String: String]) throws -> (pid: pid_t, output: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw Failure(description: "cannot make a pipe for \(argv[0])'s output: \(String(cString: strerror(errno)))")
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        // Close-on-exec for anything else that might start a program; every start here closes
        // them in the child anyway. (Swift's Glibc module does not declare pipe2.)
        for end in [readEnd, writeEnd] { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(writeEnd) }
        do {
            let pid = try start(argv, environment: environment, outputDescriptor: writeEnd)
            return (pid, readEnd)
        } catch {
            close(readEnd)
            throw error
        }
    }

    private static func start(_ argv: [String], environment: [String: String], outputDescriptor: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, outputDescriptor, 2)
        closeAboveStandardError(&actions)
        return try spawn(argv, environment: environment, &actions)
    }

    /// Has the child close every descriptor from 3 up.
    private static func closeAboveStandardError(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom {
            _ = closeFrom(&actions, 3)
        } else {
            // Before glibc 2.34: close what is open now (a descriptor opened after this list leaks).
            let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
            for descriptor in open where descriptor > 2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
        }
    }

    private static func spawn(_ argv: [String], environment: [String: String]?, _ actions: inout posix_spawn_file_actions_t) throws -> pid_t {
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var cEnvironment = (environment ?? [:]).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for entry in cEnvironment { free(entry) } }
        var pid: pid_t = 0
        let spawned = environment == nil
            ? posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
            : posix_spawn(&pid, argv[0], &actions, nil, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw Failure(description: "cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
        return pid
    }

    /// Blocks the calling thread until the child `pid` ends, and reaps it.
    public static func wait(for pid: pid_t) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            // Only EINTR can recur; anything else (ECHILD) means there is nothing to wait for.
            if errno != EINTR { return Termination(status: -1, signaled: false) }
        }
        // WIFEXITED, WEXITSTATUS and WTERMSIG, which Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? Termination(status: (status >> 8) & 0xff, signaled: false) : Termination(status: signal, signaled: true)
    }

    /// Runs a program to its end (see `start`).
    public static func run(
        _ argv: [String], environment: [String: String]? = nil, input: String? = nil, output: String, errors: String? = nil
    ) throws -> Termination {
        wait(for: try start(argv, environment: environment, input: input, output: output, errors: errors))
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not declare.
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }
}
