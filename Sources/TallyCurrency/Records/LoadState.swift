import Foundation
import TallyStorage

/// Where a currency data set came from. A set loaded from a file stays until an operator loads
/// another; a set from the binary is replaced by a binary with different embedded data.
public enum CurrencySource: String, Sendable, Codable {
    /// `CurrencyData.embedded`, built into the binary.
    case embedded
    /// A file loaded with `tally currency load`.
    case file
}

/// The one row of `load_state`, as read in a transaction.
struct LoadState: Sendable {
    /// The set readers use.
    struct Active: Sendable, Equatable {
        var generation: Int64
        var version: String
        var source: CurrencySource
        var count: Int
    }

    /// A load in progress.
    struct Claim: Sendable, Equatable {
        var generation: Int64
        var owner: String
        var loader: LoaderIdentity
        var version: String
        var source: CurrencySource
        var loaded: Int
        var total: Int
        var heartbeatMilliseconds: Int64

        /// Whether the loader is gone: its process is known to be dead, or it has not renewed the
        /// claim for `staleAfter`.
        func isStale(now: Int64, staleAfter: Duration) -> Bool {
            loader.isCertainlyDead || now - heartbeatMilliseconds > staleAfter.wholeMilliseconds
        }
    }

    var active: Active?
    var claim: Claim?
    var nextGeneration: Int64

    /// The state as of the caller's snapshot.
    static func read(_ session: any SQLSession) throws -> LoadState {
        try LoadState(try session.fetchOne("SELECT * FROM load_state WHERE id = 1"))
    }

    /// The state, read by a write of the row that holds the row's lock until the transaction ends:
    /// what a loader decides on it cannot be overtaken by another loader's commit.
    static func lock(_ session: any SQLSession) throws -> LoadState {
        try LoadState(try session.fetchOne("UPDATE load_state SET next_generation = next_generation WHERE id = 1 RETURNING *"))
    }

    /// The assignments that clear the claim.
    static let noClaim: SQL = """
        claim_generation = NULL, claim_owner = NULL, claim_pid = NULL, claim_host = NULL, claim_version = NULL,
        claim_source = NULL, claim_loaded = NULL, claim_total = NULL, claim_heartbeat_ms = NULL
        """

    private init(_ row: SQLRow?) throws {
        guard let row else { throw CurrencyStorageError("load_state has no row; the currency database is damaged") }
        nextGeneration = try row["next_generation"]
        if let generation: Int64 = try row["active_generation"] {
            active = Active(
                generation: generation, version: try row["active_version"] ?? "",
                source: CurrencySource(rawValue: try row["active_source"] ?? "") ?? .embedded,
                count: try row["active_count"] ?? 0)
        }
        if let generation: Int64 = try row["claim_generation"] {
            claim = Claim(
                generation: generation, owner: try row["claim_owner"] ?? "",
                loader: LoaderIdentity(pid: try row["claim_pid"] ?? 0, host: try row["claim_host"] ?? ""),
                version: try row["claim_version"] ?? "",
                source: CurrencySource(rawValue: try row["claim_source"] ?? "") ?? .embedded,
                loaded: try row["claim_loaded"] ?? 0, total: try row["claim_total"] ?? 0,
                heartbeatMilliseconds: try row["claim_heartbeat_ms"] ?? 0)
        }
    }
}

/// The currency database is not in a state Tally wrote: a bug or a damaged file. Reported as `internal`.
struct CurrencyStorageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
