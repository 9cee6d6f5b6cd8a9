import Foundation
import Logging
import TallyAuth
import TallyCatalog
import TallyCurrency
import TallyIdentity
import TallyProtocol
import TallyTesting
import TallyWorker

/// Every service of `ServiceCatalog`, each behind the `RequestProcessor` its workers run, on real
/// SQLite stores in a temporary directory. Made once per fuzzing process, on first use (a target
/// makes it in `LLVMFuzzerInitialize`, so that opening the stores and loading the currency data
/// is not counted against the first input's time limit), and removed when the process exits.
public final class LiveServices: Sendable {
    public static let shared: LiveServices = {
        do {
            return try Fuzz.keptForAllInputs { try LiveServices() }
        } catch {
            fatalError("cannot open the services' stores: \(error)")
        }
    }()

    /// Where the stores live: `<service>.sqlite`, as `tally up` keeps them.
    public let directory: String
    private let processors: [String: RequestProcessor]
    private let harnesses: [String: ServiceHarness]

    private init() throws {
        directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("tally-fuzz-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: LiveServices.shared.directory) }

        var logger = Logger(label: "tally.fuzz")
        logger.logLevel = .error
        // identity signs tokens with a key of its own, and hashes passwords at the weakest cost it
        // accepts, so that a fuzzed signup or login costs milliseconds rather than a second.
        let options = ServiceOptions(
            signingKey: try TokenSigningKey.generate(id: "fuzz"),
            identity: IdentitySettings(passwordHashing: ScryptParameters(logN: ScryptParameters.weakestAccepted)))
        var processors: [String: RequestProcessor] = [:]
        var harnesses: [String: ServiceHarness] = [:]
        for type in ServiceCatalog.handlers {
            // Durability.process: a fuzzed write need not wait for the disk.
            // Its background services are not run: SQLite checkpoints in the commits, as it does by default.
            guard let handler = try ServiceCatalog.open(type.serviceName, data: .directory(directory, .process), options: options)?.handler else {
                fatalError("the catalog lists \(type.serviceName) but makes no handler for it")
            }
            // The currency worker answers `unavailable` until its data is loaded (by its
            // `backgroundServices`, in a worker process); searching an empty store would fuzz nothing.
            if let currency = handler as? CurrencyService {
                _ = try CurrencyLoader(store: currency.store).load(.embedded, source: .embedded, policy: .unlessCurrent)
            }
            processors[type.serviceName] = RequestProcessor(handler: handler, middleware: [SignedInCaller()], logger: logger)
            harnesses[type.serviceName] = ServiceHarness(handler)
        }
        self.processors = processors
        self.harnesses = harnesses
    }

    /// The reply frame the worker of the request's service sends for `frame`, or nil when the
    /// request names no service here (the gateway answers those itself).
    public func reply(to frame: Data) -> Data? {
        guard let head = try? EnvelopeHead.decode(frame), let processor = processors[String(head.service)] else { return nil }
        return processor.process([frame])
    }

    /// The service `name`'s commands called directly, as `ServiceHarness` calls them: without the
    /// envelope's and the reply's JSON, for targets that fuzz what a command does with one argument.
    public func harness(_ name: String) -> ServiceHarness {
        guard let harness = harnesses[name] else { fatalError("no service \(name) in the catalog") }
        return harness
    }
}

/// Sets the caller on commands that need one, as the authentication middleware does for a valid
/// token, so that fuzzed args reach the argument readers of every command (the token itself is not
/// what this target fuzzes).
struct SignedInCaller: RequestMiddleware {
    func respond(
        to request: Request, next: (Request) throws -> any Encodable & Sendable
    ) throws -> any Encodable & Sendable {
        var request = request
        switch request.command.access {
        case .open: break
        case .user: request.context.caller = Caller(userID: "fuzz", username: "fuzz")
        case .role(let role): request.context.caller = Caller(userID: "fuzz", username: "fuzz", roles: [role])
        }
        return try next(request)
    }
}
