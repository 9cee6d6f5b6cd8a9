import Logging
import ServiceLifecycle
import TallyLifecycle
import TallyMoney
import ZeroMQ

/// A currency worker's load of its data (`CurrencyLoader`, policy `unlessCurrent`), as a service
/// of the process's group: it runs beside the workers, which answer `currency.status` with its
/// progress meanwhile (and the other commands `unavailable`), until the data is active, retrying
/// failures (a database busy for long, a full disk) with backoff. Then it idles until the group
/// stops.
///
/// When the group stops (or is cancelled) during a load, the load stops before its next chunk,
/// or its next look at another process's claim, and gives back any claim it holds, so another
/// worker takes the load over at once. The loader blocks (database writes, polling), so it runs
/// on a thread of its own, never on the Swift concurrency pool.
public struct CurrencyLoadService: Service {
    let loader: CurrencyLoader
    let data: @Sendable () -> CurrencyData
    let logger: Logger

    init(loader: CurrencyLoader, data: @escaping @Sendable () -> CurrencyData, logger: Logger) {
        self.loader = loader
        self.data = data
        self.logger = logger
    }

    public func run() async throws {
        var backoff = 1.0
        while true {
            do {
                let outcome = try await DedicatedThread.runUntilShutdown(name: "currency-loader") { [loader, data] stop in
                    var loader = loader
                    loader.isStopping = { stop.isFired }
                    return try loader.load(data(), source: .embedded, policy: .unlessCurrent)
                }
                if !outcome.loaded {
                    logger.info("currency data is ready", metadata: [
                        "version": "\(outcome.version)", "source": "\(outcome.source.rawValue)", "count": "\(outcome.count)"])
                }
                break
            } catch is CurrencyLoader.Stopped {
                return
            } catch {
                logger.error("loading currency data failed; retrying", metadata: ["error": "\(error)", "retry_in_s": "\(backoff)"])
                do {
                    try await cancelWhenGracefulShutdown { [backoff] in try await Task.sleep(for: .seconds(backoff)) }
                } catch {
                    return  // the group is stopping
                }
                backoff = min(backoff * 2, 30)
            }
        }
        // Done; returning now would end the group (a service's return stops the others).
        try? await gracefulShutdown()
    }
}
