import Foundation
import Logging
import Synchronization
import TallyNotifier
import Testing

/// A source the notifier cannot reach is worth one warning, and only once it has been unreachable
/// longer than a start takes: a clean start, when the notifier asks before the workers have
/// registered, logs none.
@Suite struct CatchUpWarningTests {
    private func processor(feed: FakeFeed, patience: Duration, log: RecordedLog) throws -> EventProcessor {
        EventProcessor(
            store: try makeStore(), feed: feed, catalogSources: ["shopping"], initialBackoff: .zero, patience: patience,
            logger: Logger(label: "test") { _ in log }
        ) { _, _ in }
    }

    @Test func aSourceUnreachableForLessThanThePatienceIsNoWarning() throws {
        let feed = FakeFeed()
        feed.failing = ["shopping"]
        let log = RecordedLog()
        let processor = try processor(feed: feed, patience: .seconds(3600), log: log)
        for _ in 0..<3 { processor.catchUp("shopping", force: true) }
        #expect(log.messages(at: .warning).isEmpty)
        #expect(log.messages(at: .debug).filter { $0 == "could not catch up on events" }.count == 3)
    }

    @Test func aSourceUnreachableForLongerIsOneWarningAndItsReturnIsSaid() throws {
        let feed = FakeFeed()
        feed.failing = ["shopping"]
        let log = RecordedLog()
        let processor = try processor(feed: feed, patience: .zero, log: log)
        for _ in 0..<3 { processor.catchUp("shopping", force: true) }
        #expect(log.messages(at: .warning) == ["could not catch up on events"])
        feed.failing = []
        processor.catchUp("shopping", force: true)
        #expect(log.messages(at: .info) == ["caught up on events again"])
    }
}

/// Every message logged, with its level.
final class RecordedLog: LogHandler, @unchecked Sendable {
    private let entries = Mutex<[(Logger.Level, String)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        entries.withLock { $0.append((event.level, "\(event.message)")) }
    }

    func messages(at level: Logger.Level) -> [String] {
        entries.withLock { $0.filter { $0.0 == level }.map(\.1) }
    }
}
