import Foundation
import TallyMoney
import TallyProtocol
import TallyStorage

/// Loads a currency data set into the currency store so that every process sharing it sees the
/// old set or the new one, never part of one, and exactly one process loads at a time.
///
/// 1. **Claim** (one write transaction): unless a live claim exists, take a new generation number
///    and record the claim (owner, pid, host, version, 0 of N loaded, heartbeat). A claim whose
///    process is known to be dead, or that has not been renewed for `staleAfter`, is taken over;
///    rows of abandoned loads are deleted here.
/// 2. **Fill** (one write transaction per chunk of `chunkSize` currencies): check the claim is
///    still ours, insert the rows tagged with our generation, advance `loaded` and the heartbeat.
///    Readers meanwhile use the active generation and never see these rows.
/// 3. **Switch** (one write transaction): check the claim is still ours, make our generation the
///    active one, clear the claim and delete every other generation's rows.
///
/// While a claim is live the others wait (polling) and report its progress; a worker starting up
/// with the same data finds it active when the claim is released and has nothing to do.
///
/// Every step's transaction starts by writing the `load_state` row (`LoadState.lock`, or the
/// claim check that renews the heartbeat), and decides only after that. On SQLite, where one
/// writer runs at a time, this changes nothing; on a database whose writers run side by side
/// (PostgreSQL) the row's lock is what makes the check and the change one step, so two loaders
/// can never both claim, nor a loader switch after its claim was taken over. The transactions do
/// database work only (progress is reported after they commit), since an engine may run one again.
public struct CurrencyLoader: Sendable {
    /// Which loads happen.
    public enum Policy: Sendable {
        /// At a worker's start: load only if no set is active, or if the active set came from an
        /// embedded data version other than this one. A set loaded from a file is kept.
        case unlessCurrent
        /// `tally currency load`: always load, replacing whatever is active.
        case replace
    }

    /// What a call to `load` did.
    public struct Outcome: Sendable, Equatable {
        /// False when the data was already active (policy `unlessCurrent`) and nothing was written.
        public var loaded: Bool
        public var version: String
        public var source: CurrencySource
        public var count: Int
    }

    public let store: CurrencyStore
    /// Currencies per write transaction.
    public var chunkSize = 25
    /// A claim not renewed for this long is taken over. Each chunk renews it.
    public var staleAfter: Duration = .seconds(30)
    /// How often a process waiting for another's load looks again.
    public var pollInterval: Duration = .milliseconds(100)
    /// Called with progress while this process waits for another's load, or loads itself.
    public var onEvent: (@Sendable (Event) -> Void)?

    var identity = LoaderIdentity.current
    /// Called on the thread that loads, before each chunk, with the number of currencies loaded so far:
    /// where a test holds a load at a known point, or paces it to watch it load.
    public var beforeChunk: (@Sendable (Int) -> Void)?
    /// Asked while waiting for another process's load and before each chunk of this one: true
    /// stops the load with `Stopped` (giving back a claim it holds), so a process shutting down
    /// leaves promptly and another takes the load over at once rather than after `staleAfter`.
    public var isStopping: (@Sendable () -> Bool)?

    /// The load was stopped (`isStopping`) before it finished; nothing of it was made active.
    public struct Stopped: Error, CustomStringConvertible {
        public var description: String { "the currency load was stopped before it finished; nothing of it was made active" }
    }

    public enum Event: Sendable {
        case waiting(pid: Int32, host: String, loaded: Int, total: Int)
        case tookOver(pid: Int32, host: String, loaded: Int, total: Int)
        case started(version: String, total: Int)
        /// A chunk committed: `loaded` of `total` currencies are written (not yet active).
        case loaded(Int, of: Int)
        case switched(version: String, count: Int)
    }

    public init(store: CurrencyStore) {
        self.store = store
    }

    /// Loads `data` as the active set (see `Policy`), waiting for another process's load first if
    /// one is running. Blocks the calling thread.
    /// - Parameter waitingAtMost: how long to wait for another process's load before giving up
    ///   with `unavailable`; nil waits as long as it takes.
    public func load(
        _ data: CurrencyData, source: CurrencySource, policy: Policy, waitingAtMost: Duration? = nil
    ) throws -> Outcome {
        let deadline = waitingAtMost.map { ContinuousClock.now + $0 }
        var reportedWait: String?
        while true {
            if isStopping?() == true { throw Stopped() }
            let claimed: ClaimResult
            do {
                claimed = try claim(data, source: source, policy: policy)
            } catch let error as TallyError where error.code == .unavailable {
                // The database stayed locked past its busy timeout: another loader is writing a
                // chunk, slowly on a loaded machine. That is a wait like `.busy`, not a failure.
                if let deadline, ContinuousClock.now >= deadline { throw error }
                Thread.sleep(forTimeInterval: pollInterval.seconds)
                continue
            }
            switch claimed {
            case .current(let active):
                return Outcome(loaded: false, version: active.version, source: active.source, count: active.count)
            case .claimed(let claim, let stale):
                if let stale {
                    onEvent?(.tookOver(pid: stale.loader.pid, host: stale.loader.host, loaded: stale.loaded, total: stale.total))
                }
                do {
                    return try fill(claim, with: data, source: source)
                } catch is ClaimLost where policy == .unlessCurrent {
                    continue  // another process took the load over; wait for it like any other
                } catch let lost as ClaimLost {
                    throw lost
                } catch {
                    // Give the claim back at once rather than leave it to go stale (best effort:
                    // if the database fails again, the claim goes stale and is taken over).
                    try? release(claim)
                    throw error
                }
            case .busy(let other):
                if let deadline, ContinuousClock.now >= deadline {
                    throw TallyError(
                        .unavailable,
                        "another process (pid \(other.loader.pid) on \(other.loader.host)) is loading currency data, \(other.loaded) of \(other.total) currencies so far; try again when it has finished")
                }
                if reportedWait != other.owner {
                    reportedWait = other.owner
                    onEvent?(.waiting(pid: other.loader.pid, host: other.loader.host, loaded: other.loaded, total: other.total))
                }
                Thread.sleep(forTimeInterval: pollInterval.seconds)
            }
        }
    }

    // MARK: Claim

    enum ClaimResult {
        case current(LoadState.Active)
        /// Ours now; `tookOver` is the stale claim it replaced, if any.
        case claimed(LoadState.Claim, tookOver: LoadState.Claim?)
        case busy(LoadState.Claim)
    }

    /// The claim's owner changed under us: our claim went stale and another process took it over.
    struct ClaimLost: Error, CustomStringConvertible {
        var description: String {
            "another process took over this currency load after it went stale; nothing of it was made active"
        }
    }

    func claim(_ data: CurrencyData, source: CurrencySource, policy: Policy) throws -> ClaimResult {
        try store.engine.write { session in
            let state = try LoadState.lock(session)
            if policy == .unlessCurrent, let active = state.active,
                active.source == .file || active.version == data.version
            {
                return .current(active)
            }
            let now = Timestamp.now()
            if let other = state.claim, !other.isStale(now: now, staleAfter: staleAfter) { return .busy(other) }
            // Whatever abandoned loads left behind goes; the active set stays.
            for table in CurrencySchema.dataTables {
                if let active = state.active {
                    try session.execute("DELETE FROM \(raw: table) WHERE generation <> \(active.generation)")
                } else {
                    try session.execute("DELETE FROM \(raw: table)")
                }
            }
            let claim = LoadState.Claim(
                generation: state.nextGeneration, owner: UUID().uuidString, loader: identity, version: data.version,
                source: source, loaded: 0, total: data.currencies.count, heartbeatMilliseconds: now)
            try session.execute("""
                UPDATE load_state SET next_generation = \(claim.generation + 1), claim_generation = \(claim.generation),
                    claim_owner = \(claim.owner), claim_pid = \(claim.loader.pid), claim_host = \(claim.loader.host),
                    claim_version = \(claim.version), claim_source = \(claim.source.rawValue), claim_loaded = 0,
                    claim_total = \(claim.total), claim_heartbeat_ms = \(claim.heartbeatMilliseconds)
                WHERE id = 1
                """)
            return .claimed(claim, tookOver: state.claim)
        }
    }

    /// Abandons `claim` if it is still ours: clears it and deletes its rows.
    private func release(_ claim: LoadState.Claim) throws {
        try store.engine.write { session in
            let cleared = try session.execute("UPDATE load_state SET \(LoadState.noClaim) WHERE id = 1 AND claim_owner = \(claim.owner)")
            guard cleared == 1 else { return }
            for table in CurrencySchema.dataTables {
                try session.execute("DELETE FROM \(raw: table) WHERE generation = \(claim.generation)")
            }
        }
    }

    /// Fails with `ClaimLost` unless `claim` is still the load in progress; renews its heartbeat.
    private func verify(_ claim: LoadState.Claim, _ session: any SQLSession) throws {
        let renewed = try session.execute(
            "UPDATE load_state SET claim_heartbeat_ms = \(Timestamp.now()) WHERE id = 1 AND claim_owner = \(claim.owner)")
        guard renewed == 1 else { throw ClaimLost() }
    }

    // MARK: Fill and switch

    /// Search terms written by one statement: 5 values a row, well inside both engines' limits on
    /// bound values (SQLite 32,766, PostgreSQL 65,535).
    static let termsPerStatement = 500

    private func fill(_ claim: LoadState.Claim, with data: CurrencyData, source: CurrencySource) throws -> Outcome {
        onEvent?(.started(version: data.version, total: data.currencies.count))
        let generation = claim.generation
        func json(_ value: some Encodable) throws -> String { String(decoding: try TallyJSON.encode(value), as: UTF8.self) }

        try store.engine.write { session in
            try verify(claim, session)
            for (region, names) in data.territories {
                try session.execute("INSERT INTO territory (generation, region, names) VALUES (\(generation), \(region), \(try json(names)))")
            }
            for (region, code) in data.regionCurrency {
                try session.execute("INSERT INTO region_currency (generation, region, code) VALUES (\(generation), \(region), \(code))")
            }
        }

        var loaded = 0
        for start in stride(from: 0, to: data.currencies.count, by: max(1, chunkSize)) {
            beforeChunk?(loaded)
            if isStopping?() == true { throw Stopped() }
            let chunk = data.currencies[start..<min(start + max(1, chunkSize), data.currencies.count)]
            try store.engine.write { session in
                try verify(claim, session)
                for entry in chunk {
                    try session.execute("""
                        INSERT INTO currency (generation, code, numeric, minor_units, iso_minor_units, cldr_minor_units,
                            cash_rounding, symbol, narrow_symbol, symbols, names, iso_name, countries, retired)
                        VALUES (\(generation), \(entry.code), \(entry.numeric), \(entry.minorUnits), \(entry.isoMinorUnits),
                            \(entry.cldrMinorUnits), \(entry.cashRounding), \(entry.symbol), \(entry.narrowSymbol),
                            \(try json(entry.symbols)), \(try json(entry.names)), \(entry.isoName), \(try json(entry.countries)),
                            \(entry.retired))
                        """)
                    // Many rows to a statement: a currency has hundreds of terms, and on PostgreSQL
                    // each statement is a round trip to the server.
                    let terms = Array(SearchTerm.terms(of: entry, territories: data.territories))
                    for start in stride(from: 0, to: terms.count, by: Self.termsPerStatement) {
                        let rows = terms[start..<min(start + Self.termsPerStatement, terms.count)].map { term -> SQL in
                            "(\(generation), \(entry.code), \(term.kind.rawValue), \(term.language), \(term.text))"
                        }
                        try session.execute("""
                            INSERT INTO currency_term (generation, code, kind, language, term)
                            VALUES \(SQL.joined(rows, separator: ", "))
                            ON CONFLICT DO NOTHING
                            """)
                    }
                }
                try session.execute(
                    "UPDATE load_state SET claim_loaded = \(loaded + chunk.count), claim_heartbeat_ms = \(Timestamp.now()) WHERE id = 1")
            }
            loaded += chunk.count
            onEvent?(.loaded(loaded, of: data.currencies.count))
        }

        try store.engine.write { session in
            try verify(claim, session)
            try session.execute("""
                UPDATE load_state SET active_generation = \(generation), active_version = \(data.version),
                    active_source = \(source.rawValue), active_count = \(data.currencies.count),
                    activated_at_ms = \(Timestamp.now()), \(LoadState.noClaim)
                WHERE id = 1
                """)
            for table in CurrencySchema.dataTables {
                try session.execute("DELETE FROM \(raw: table) WHERE generation <> \(generation)")
            }
        }
        onEvent?(.switched(version: data.version, count: data.currencies.count))
        return Outcome(loaded: true, version: data.version, source: source, count: data.currencies.count)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
