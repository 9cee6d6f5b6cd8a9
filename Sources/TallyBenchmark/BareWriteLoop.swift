import Foundation
import TallyCatalog
import TallyShopping
import TallyStorage
import ZeroMQ

/// The limit for keyed writes on this machine: the rows one keyed `shopping.add_item` commits
/// (the item, its list's tallies, its outbox event and its stored result), written by a bare loop
/// with no ZeroMQ, no JSON and no request handling, on the same engine and settings as the stack
/// (SQLite or PostgreSQL, the run's durability, the shopping schema's tables and indexes) but
/// data of its own (the file or schema `bare_writes`).
///
/// The loop commits `inFlight` writes a transaction: the most a group commit can find together
/// when that many requests are in flight, so the row is the best the stack's writes could do.
/// The event and the result it stores are byte copies of ones the stack's own row stored, so
/// the rows are the same size as the stack's.
struct BareWriteLoop {
    /// The stack's data location: the loop's own data is made beside the stack's.
    let location: DataLocation
    let inFlight: Int

    struct Sample {
        let eventData: Data
        let result: Data

        /// The newest `item_added` event and keyed result in the stack's shopping data, read while
        /// its worker runs.
        static func read(from location: DataLocation) throws -> Sample {
            try location.engine(for: "shopping").read { session in
                guard let data = try session.fetchValue("SELECT data FROM event WHERE type = 'shopping.item_added' ORDER BY sequence DESC LIMIT 1", as: Data.self),
                    let result = try session.fetchValue("SELECT result FROM idempotency_key WHERE scope LIKE 'shopping.add_item%' LIMIT 1", as: Data.self)
                else { throw BenchmarkError("the stack's shopping data holds no keyed shopping.add_item to copy the rows of") }
                return Sample(eventData: data, result: result)
            }
        }
    }

    /// Opens the loop's data and hands `body` its slices, which it measures in turn with the
    /// stack's rows, so that a disk or a machine quicker at one moment than another falls on both
    /// sides of the ratio alike. The engine's background services run meanwhile, as a worker runs
    /// them: on SQLite the checkpointer, which keeps checkpoints out of the commits.
    func run(_ body: (Slices) async throws -> Void) async throws {
        let engine = try location.engine(for: "bare_writes")
        _ = try ShoppingStore(engine: engine)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in engine.backgroundServices { group.addTask { try await service.run() } }
            defer { group.cancelAll() }
            try await body(Slices(engine: engine, location: location, inFlight: inFlight))
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// The loop's state between slices: its lists fill and its ids go on as one row's would.
    /// A slice runs on a thread of its own, one slice at a time, so nothing is shared at once.
    final class Slices: @unchecked Sendable {
        private let engine: any StorageEngine
        private let location: DataLocation
        private let inFlight: Int
        /// Read at the first slice: by then the stack's row has stored a keyed add_item.
        private var sample: Sample?
        private var now = Int64(Date().timeIntervalSince1970 * 1000)
        private var written = 0
        private var list: Int64 = 0

        fileprivate init(engine: any StorageEngine, location: DataLocation, inFlight: Int) {
            self.engine = engine
            self.location = location
            self.inFlight = inFlight
        }

        /// One slice: writes for `warmup`, then measures writes for `measured`.
        func measure(warmup: Duration, measured: Duration) async throws -> PipelinedLoad.Outcome {
            if sample == nil { sample = try Sample.read(from: location) }
            return try await DedicatedThread.run(name: "bench-bare-writes") { [self] in try drive(warmup: warmup, measured: measured) }
        }

        private func drive(warmup: Duration, measured: Duration) throws -> PipelinedLoad.Outcome {
            guard let sample else { throw BenchmarkError("the bare loop has no sample rows") }
            let clock = ContinuousClock()
            let inFlight = inFlight
            /// One transaction of `inFlight` writes, each as the stack's handler writes its rows.
            func transaction() throws {
                try engine.write { session in
                    var sequence = try SequenceCounter.events.take(inFlight, session) - 1
                    for _ in 0..<inFlight {
                        // A list holds at most 500 items, as in the stack's row.
                        if written % 500 == 0 {
                            list = try session.fetchValue(
                                """
                                INSERT INTO shopping_list (owner, kind, name, currency, created_at_ms, updated_at_ms, item_count, purchased_count, total_minor)
                                VALUES ('bench', 'shopping', \("Bare \(written)"), 'EUR', \(timestamp: now), \(timestamp: now), 0, 0, '0') RETURNING id
                                """, as: Int64.self)!
                        }
                        written += 1
                        now += 1
                        sequence += 1
                        let name = "item \(written)"
                        _ = try session.fetchOne(
                            """
                            INSERT INTO shopping_item (list_id, name, name_key, unit, planned_quantity, purchased_quantity, purchased, created_at_ms, updated_at_ms)
                            VALUES (\(list), \(name), \(name), NULL, 1, 0, FALSE, \(timestamp: now), \(timestamp: now))
                            RETURNING id, list_id, name, name_key, unit, planned_quantity, purchased_quantity, purchased, unit_price_minor, purchased_at_ms, created_at_ms, updated_at_ms
                            """)
                        try session.execute("UPDATE shopping_list SET item_count = item_count + 1, updated_at_ms = \(timestamp: now) WHERE id = \(list)")
                        // The event and the stored result as the stack writes them: one batch.
                        try session.executeBatch([
                            """
                            INSERT INTO event (sequence, id, type, subject, time, data, request_id, traceparent)
                            VALUES (\(sequence), \(UUID().uuidString.lowercased()), 'shopping.item_added', \("list/\(list)"), \(Timestamp.rfc3339(now)), \(sample.eventData), \(name), NULL)
                            """,
                            """
                            INSERT INTO idempotency_key (key, scope, fingerprint, result, created_at)
                            VALUES (\("bare-\(written)"), 'shopping.add_item:bench', \(name), \(sample.result), \(now / 1000))
                            """,
                        ])
                    }
                }
            }

            let cpu = ProcessCPU(pids: [getpid()])
            let warmupEnd = clock.now + warmup
            while clock.now < warmupEnd { try transaction() }
            var outcome = PipelinedLoad.Outcome()
            let cpuBefore = cpu.seconds()
            let start = clock.now
            let end = start + measured
            while clock.now < end {
                let began = clock.now
                try transaction()
                // Every write of a transaction waits for its commit.
                _ = outcome.latency.record((clock.now - began).microseconds, count: UInt64(inFlight))
                outcome.completed += inFlight
            }
            outcome.elapsed = clock.now - start
            if let before = cpuBefore, let after = cpu.seconds() { outcome.cpuSecondsByProcess = zip(after, before).map(-) }
            return outcome
        }
    }
}
