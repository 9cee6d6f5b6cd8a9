import Foundation
import TallyMoney
import TallyLifecycle
import TallyProtocol
@testable import TallyCurrency
import TallyStorage
import TallyTesting
import Testing

@Suite struct LoadingTests {
    @Test func aFreshDatabaseIsLoadingUntilTheFirstLoadThenReady() throws {
        let store = try makeStore(loading: nil)
        #expect(try store.status() == CurrencyStatus(
            state: .loading, count: nil, dataVersion: nil, source: nil, loaded: 0, total: 0, reload: nil))
        let unavailable = runError(store, "currency.search", ["query": "yen"])
        #expect(unavailable?.code == .unavailable)
        #expect(unavailable?.message == "the currency data is not loaded yet; retry shortly")

        let outcome = try CurrencyLoader(store: store).load(.embedded, source: .embedded, policy: .unlessCurrent)
        #expect(outcome.loaded)
        #expect(outcome.count == CurrencyData.embedded.currencies.count)
        let status = try run(store, "currency.status")
        #expect(status == [
            "state": "ready", "count": .integer(Int64(CurrencyData.embedded.currencies.count)),
            "data_version": .string(CurrencyData.embedded.version), "source": "embedded",
        ])
        // Starting again (another worker, a restart) finds the data current and loads nothing.
        let again = try CurrencyLoader(store: store).load(.embedded, source: .embedded, policy: .unlessCurrent)
        #expect(!again.loaded)
        #expect(try rowGenerations(store) == [1])
    }

    /// What `tally currency load` draws its progress from: one event per committed chunk, up to the total.
    @Test func theLoaderReportsEachCommittedChunk() throws {
        var loader = CurrencyLoader(store: try makeStore(loading: nil))
        loader.chunkSize = 100
        let progress = Observations<Int>()
        loader.onEvent = { event in
            if case .loaded(let loaded, _) = event { progress.append(loaded) }
        }
        _ = try loader.load(.embedded, source: .embedded, policy: .replace)
        let total = CurrencyData.embedded.currencies.count
        #expect(progress.items == Array(stride(from: 100, to: total, by: 100)) + [total])
    }

    @Test func progressIsVisibleWhileLoadingAndSearchesSayItIsLoading() async throws {
        let store = try makeStore(loading: nil)
        var loader = CurrencyLoader(store: store)
        let gate = Gate(at: 50)
        loader.beforeChunk = gate.hook
        let finished = Observations<Bool>()
        let thread = Thread { [loader] in
            finished.append((try? loader.load(.embedded, source: .embedded, policy: .unlessCurrent)) != nil)
        }
        thread.start()

        let total = CurrencyData.embedded.currencies.count
        try await waitUntil("the load holds after 50 currencies") { gate.isReached }
        #expect(try run(store, "currency.status") == ["state": "loading", "loaded": 50, "total": .integer(Int64(total))])
        let error = try #require(runError(store, "currency.search", ["query": "yen"]))
        #expect(error.code == .unavailable)
        #expect(error.message == "the currency data is still loading (50 of \(total) currencies); retry shortly")
        #expect(runError(store, "currency.get", ["code": "EUR"])?.code == .unavailable)
        #expect(runError(store, "currency.default_for_locale", ["locale": "de_CH"])?.code == .unavailable)

        gate.open()
        try await waitUntil("the loader returned") { !finished.items.isEmpty }
        #expect(finished.items == [true])
        #expect(try store.status().state == .ready)
        #expect(codes(try run(store, "currency.search", ["query": "yen"])).first == "JPY")
    }

    /// Two stores on one file are two connections, as two worker processes are. The first is held
    /// mid-load until the second has seen its claim, so the two loads really overlap however the
    /// threads are scheduled.
    @Test func ofTwoLoadersStartingTogetherExactlyOneLoads() async throws {
        let directory = try temporaryDataDirectory()
        let outcomes = Observations<CurrencyLoader.Outcome>()
        let waited = Observations<Int>()
        let gate = Gate(at: 50)
        let threads = try (0..<2).map { index in
            var loader = CurrencyLoader(store: try openStore(directory))
            loader.pollInterval = .milliseconds(10)
            // The first load is held at the gate without renewing its claim: on a loaded machine
            // the waits below may take longer than the default 30 s of wall time, after which the
            // second loader would take the claim over instead of waiting for it.
            loader.staleAfter = .seconds(600)
            if index == 0 { loader.beforeChunk = gate.hook }
            loader.onEvent = { if case .waiting = $0 { waited.append(index) } }
            return Thread { [loader] in
                do { outcomes.append(try loader.load(.embedded, source: .embedded, policy: .unlessCurrent)) } catch {
                    Issue.record("load failed: \(error)")
                }
            }
        }
        threads[0].start()
        try await waitUntil("the first load holds after 50 currencies") { gate.isReached }
        threads[1].start()
        try await waitUntil("the second loader waits for the first") { waited.items == [1] }
        gate.open()
        // A guard against a hang, not a measure: the rest of the load is seconds of CPU, which a
        // machine busy with other work stretches.
        try await waitUntil("both loaders returned", timeout: .seconds(120)) { outcomes.items.count == 2 }
        #expect(outcomes.items.filter(\.loaded).count == 1)
        #expect(waited.items == [1], "only the second one waited")
        let store = try openStore(directory)
        #expect(try store.status().state == .ready)
        #expect(try rowGenerations(store) == [1])
    }

    @Test func aClaimOfADeadProcessIsTakenOverAtOnce() throws {
        let store = try makeStore(loading: nil)
        let dead = try deadProcessID()
        try fakeClaim(store, generation: 7, pid: dead, heartbeatAgo: .zero, partialRows: 30)

        let takeovers = Observations<Int32>()
        var loader = CurrencyLoader(store: store)
        loader.onEvent = { if case .tookOver(let pid, _, _, _) = $0 { takeovers.append(pid) } }
        let outcome = try loader.load(.embedded, source: .embedded, policy: .unlessCurrent, waitingAtMost: .seconds(5))
        #expect(outcome.loaded)
        #expect(takeovers.items == [dead])
        // The dead loader's rows are gone; only the new generation is left.
        #expect(try rowGenerations(store) == [8])
        #expect(try store.status().count == CurrencyData.embedded.currencies.count)
    }

    @Test func aClaimNotRenewedForTooLongIsTakenOverAndALiveOneIsWaitedFor() throws {
        let store = try makeStore(loading: nil)
        // A live process (this one) that stopped renewing its claim a minute ago.
        try fakeClaim(store, generation: 3, pid: getpid(), heartbeatAgo: .seconds(60), partialRows: 5)
        var loader = CurrencyLoader(store: store)
        loader.staleAfter = .seconds(30)
        #expect(try loader.load(.embedded, source: .embedded, policy: .unlessCurrent, waitingAtMost: .seconds(5)).loaded)

        // A live claim, renewed just now, is waited for; past the wait, the answer says why.
        let other = try makeStore(loading: nil)
        try fakeClaim(other, generation: 3, pid: getpid(), heartbeatAgo: .zero, partialRows: 5)
        var impatient = CurrencyLoader(store: other)
        impatient.pollInterval = .milliseconds(20)
        #expect {
            try impatient.load(.embedded, source: .embedded, policy: .replace, waitingAtMost: .milliseconds(200))
        } throws: { error in
            guard let error = error as? TallyError else { return false }
            return error.code == .unavailable && error.message.contains("is loading currency data, 5 of 280 currencies so far")
        }
        #expect(try other.status().state == .loading)
    }

    /// A loader that was slow enough to be taken for dead finds its claim gone at its next chunk
    /// and stops; the set that becomes active is whole.
    @Test func aLoaderWhoseClaimWasTakenOverStops() async throws {
        let directory = try temporaryDataDirectory()
        var slow = CurrencyLoader(store: try openStore(directory))
        let gate = Gate(at: 50)
        slow.beforeChunk = gate.hook
        let slowResult = Observations<String>()
        let thread = Thread { [slow] in
            do {
                _ = try slow.load(renamedEmbeddedData(version: "slow", suffix: " (slow)"), source: .file, policy: .replace)
                slowResult.append("loaded")
            } catch {
                slowResult.append("\(error)")
            }
        }
        thread.start()
        try await waitUntil("the slow load holds after 50 currencies") { gate.isReached }

        let store = try openStore(directory)
        var hasty = CurrencyLoader(store: store)
        hasty.staleAfter = .milliseconds(1)
        try await Task.sleep(for: .milliseconds(5))
        let outcome = try hasty.load(.embedded, source: .embedded, policy: .replace, waitingAtMost: .seconds(5))
        #expect(outcome.loaded)
        gate.open()
        try await waitUntil("the slow loader gave up") { !slowResult.items.isEmpty }
        #expect(slowResult.items == ["another process took over this currency load after it went stale; nothing of it was made active"])
        let status = try store.status()
        #expect(status.dataVersion == CurrencyData.embedded.version)
        #expect(status.reload == nil)
        #expect(try run(store, "currency.get", ["code": "EUR"])["name"] == "Euro")
        #expect(try rowGenerations(store).count == 1)
    }

    @Test func aLoadThatFailsGivesItsClaimBackAtOnce() throws {
        let store = try makeStore(loading: nil)
        var broken = CurrencyData.embedded
        broken.currencies.append(broken.currencies[0])  // a code twice: the last chunk's insert fails
        #expect(throws: (any Error).self) {
            try CurrencyLoader(store: store).load(broken, source: .file, policy: .replace)
        }
        #expect(try store.status() == CurrencyStatus(
            state: .loading, count: nil, dataVersion: nil, source: nil, loaded: 0, total: 0, reload: nil))
        #expect(try rowGenerations(store).isEmpty, "the chunks it wrote are gone")
        // The next load need not wait for a stale claim.
        #expect(try CurrencyLoader(store: store).load(.embedded, source: .embedded, policy: .unlessCurrent, waitingAtMost: .zero).loaded)
    }

    /// What a worker's `CurrencyLoadService` does when its process stops mid-load.
    @Test func aStoppedLoadGivesItsClaimBackAtOnce() throws {
        let store = try makeStore(loading: nil)
        var loader = CurrencyLoader(store: store)
        let chunks = Observations<Int>()
        loader.beforeChunk = { chunks.append($0) }
        loader.isStopping = { chunks.items.count > 2 }
        #expect(throws: CurrencyLoader.Stopped.self) {
            try loader.load(.embedded, source: .embedded, policy: .unlessCurrent)
        }
        #expect(chunks.items == [0, 25, 50], "stopped before its third chunk")
        #expect(try store.status().state == .loading)
        #expect(try rowGenerations(store).isEmpty, "the chunks it wrote are gone")
        #expect(try CurrencyLoader(store: store).load(.embedded, source: .embedded, policy: .unlessCurrent, waitingAtMost: .zero).loaded)
    }

    @Test func aWorkerKeepsAFileAnOperatorLoadedButFollowsNewEmbeddedData() throws {
        let store = try makeStore(loading: renamedEmbeddedData(version: "operator", suffix: " (op)"), source: .file)
        let kept = try CurrencyLoader(store: store).load(.embedded, source: .embedded, policy: .unlessCurrent)
        #expect(!kept.loaded)
        #expect(try store.status().dataVersion == "operator")

        // A set from an older binary's embedded data is replaced by this binary's.
        let old = try makeStore(loading: renamedEmbeddedData(version: "older", suffix: ""), source: .embedded)
        let replaced = try CurrencyLoader(store: old).load(.embedded, source: .embedded, policy: .unlessCurrent)
        #expect(replaced.loaded)
        #expect(try old.status().dataVersion == CurrencyData.embedded.version)
    }

    // MARK: Helpers

    /// The generations that have rows in any data table.
    private func rowGenerations(_ store: CurrencyStore) throws -> Set<Int64> {
        try store.engine.read { session in
            var generations = Set<Int64>()
            for table in CurrencySchema.dataTables {
                generations.formUnion(try session.fetchValues("SELECT DISTINCT generation FROM \(raw: table)", as: Int64.self))
            }
            return generations
        }
    }

    /// Pretends another process claimed a load and wrote part of it.
    private func fakeClaim(_ store: CurrencyStore, generation: Int64, pid: Int32, heartbeatAgo: Duration, partialRows: Int) throws {
        try store.engine.write { session in
            try session.execute("""
                UPDATE load_state SET next_generation = \(generation + 1), claim_generation = \(generation),
                    claim_owner = 'someone-else', claim_pid = \(pid), claim_host = \(LoaderIdentity.current.host),
                    claim_version = 'theirs', claim_source = 'embedded', claim_loaded = \(partialRows), claim_total = 280,
                    claim_heartbeat_ms = \(Timestamp.now() - heartbeatAgo.wholeMilliseconds)
                """)
            for index in 0..<partialRows {
                try session.execute("""
                    INSERT INTO currency (generation, code, minor_units, symbol, narrow_symbol, symbols, names, countries, retired)
                    VALUES (\(generation), \(String(format: "Q%02d", index)), 2, 'x', 'x', '[]', '{"en":"Partial"}', '[]', \(false))
                    """)
            }
        }
    }

    /// The pid of a process that has exited and been reaped.
    private func deadProcessID() throws -> Int32 {
        let pid = try ChildSpawn.start(["/bin/true"], output: "/dev/null")
        _ = ChildSpawn.wait(for: pid)
        return pid
    }
}

/// Holds a load before the chunk that starts after `at` currencies, until opened.
final class Gate: @unchecked Sendable {
    private let at: Int
    private let lock = NSLock()
    private var reached = false
    private let release = DispatchSemaphore(value: 0)

    init(at: Int) { self.at = at }

    var isReached: Bool { lock.withLock { reached } }

    var hook: @Sendable (Int) -> Void {
        { [self] loaded in
            guard loaded == at else { return }
            lock.withLock { reached = true }
            release.wait()
        }
    }

    func open() { release.signal() }
}
