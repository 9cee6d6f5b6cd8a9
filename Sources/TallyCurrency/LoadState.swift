import Foundation
import GRDB

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

    static func read(_ db: Database) throws -> LoadState {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM load_state WHERE id = 1") else {
            throw CurrencyStorageError("load_state has no row; the currency database is damaged")
        }
        var state = LoadState(nextGeneration: row["next_generation"])
        if let generation: Int64 = row["active_generation"] {
            state.active = Active(
                generation: generation, version: row["active_version"] ?? "",
                source: CurrencySource(rawValue: row["active_source"] ?? "") ?? .embedded, count: row["active_count"] ?? 0)
        }
        if let generation: Int64 = row["claim_generation"] {
            state.claim = Claim(
                generation: generation, owner: row["claim_owner"] ?? "",
                loader: LoaderIdentity(pid: row["claim_pid"] ?? 0, host: row["claim_host"] ?? ""),
                version: row["claim_version"] ?? "", source: CurrencySource(rawValue: row["claim_source"] ?? "") ?? .embedded,
                loaded: row["claim_loaded"] ?? 0, total: row["claim_total"] ?? 0,
                heartbeatMilliseconds: row["claim_heartbeat_ms"] ?? 0)
        }
        return state
    }

    /// Milliseconds since 1970, the clock claims are stamped with; every process on a host shares it.
    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
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
