import Foundation
import TallyProtocol
import TallyStorage
import TallyTesting
import Testing

@testable import TallyRoster

/// A roster service on a real database (SQLite, or PostgreSQL: `TestDatabase`) in a fresh temporary directory, called as a worker
/// calls it (with the caller the authentication middleware would set), with results decoded as a
/// client sees them. The directory goes with the harness.
final class RosterHarness: Sendable {
    static let ann = Caller(userID: "u-ann", username: "ann")
    static let bo = Caller(userID: "u-bo", username: "bo")
    static let cleo = Caller(userID: "u-cleo", username: "cleo")
    static let eve = Caller(userID: "u-eve", username: "eve")
    /// In no team.
    static let dan = Caller(userID: "u-dan", username: "dan")

    private let temporary = TemporaryDirectory(prefix: "tally-roster")
    let service: RosterService

    var directory: String { temporary.path }
    var store: ServiceStore { service.resources.store }

    /// The harness's database: SQLite, or PostgreSQL when `TALLY_TEST_DATABASE` says so.
    let database: TestDatabase

    init() throws {
        database = try TestDatabase(name: "roster", directory: temporary.path)
        service = try Self.open(database)
    }

    /// Another service on the same database, as a second worker process would open it.
    func secondService() throws -> RosterService { try Self.open(database) }

    private static func open(_ database: TestDatabase) throws -> RosterService {
        RosterService(store: try RosterStore(engine: try database.engine()))
    }

    @discardableResult
    func call(_ command: String, _ args: JSONValue = [:], as caller: Caller?, key: String? = nil) throws -> JSONValue {
        try ServiceHarness(service).call(command, args, idempotencyKey: key, caller: caller)
    }

    /// The error `command` refuses `args` with, or nil (and a recorded issue) if it succeeds.
    func error(
        _ command: String, _ args: JSONValue = [:], as caller: Caller?, key: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> TallyError? {
        let error = ServiceHarness(service).error(command, args, idempotencyKey: key, caller: caller)
        if error == nil { Issue.record("\(command) \(args) succeeded", sourceLocation: sourceLocation) }
        return error
    }

    /// Runs `sql` in a write transaction of its own, behind the service's back.
    func execute(_ sql: SQL) throws {
        _ = try store.engine.write { try $0.execute(sql) }
    }

    func count(_ sql: SQL) throws -> Int {
        try store.read { try $0.fetchValue(sql, as: Int.self) } ?? 0
    }

    /// Every event recorded so far, oldest first.
    func events(after sequence: Int64 = 0) throws -> [CloudEvent] {
        try store.events(after: sequence, limit: 1000)
    }

    // MARK: Building a team

    /// A team managed by ann, with `members` joined as employees; returns its id.
    func team(
        _ name: String = "Corner Store", zone: String = "UTC", approval: Bool = true, margin: Int? = nil,
        members: [Caller] = [RosterHarness.bo, RosterHarness.cleo]
    ) throws -> Int64 {
        var args: [String: JSONValue] = ["name": .string(name), "time_zone": .string(zone), "requires_approval": .bool(approval)]
        if let margin { args["hours_margin_minutes"] = .integer(Int64(margin)) }
        let team = try #require(call("roster.create_team", .object(args), as: Self.ann)["id"]?.intValue)
        for member in members { try join(team, member) }
        return team
    }

    /// `caller` joins `team` through an invite ann makes.
    func join(_ team: Int64, _ caller: Caller, role: String = "employee") throws {
        let code = try #require(call("roster.create_invite", ["team_id": .integer(team), "role": .string(role)], as: Self.ann)["code"])
        try call("roster.join", ["code": code], as: caller)
    }

    /// A one-off shift on `date`; returns its id.
    @discardableResult
    func shift(
        _ team: Int64, on date: String, start: String = "09:00", end: String = "17:00", position: String = "Cashier", worker: Caller?
    ) throws -> Int64 {
        var args: [String: JSONValue] = [
            "team_id": .integer(team), "date": .string(date), "start": .string(start), "end": .string(end), "position": .string(position),
        ]
        if let worker { args["assignee"] = .string(worker.userID) }
        return try #require(call("roster.add_shift", .object(args), as: Self.ann)["id"]?.intValue)
    }

    /// A weekly shift from `from`; returns its id.
    @discardableResult
    func weekly(
        _ team: Int64, _ weekday: String, from: String, start: String = "09:00", end: String = "17:00", position: String = "Cashier",
        worker: Caller?
    ) throws -> Int64 {
        var args: [String: JSONValue] = [
            "team_id": .integer(team), "weekday": .string(weekday), "from": .string(from), "start": .string(start), "end": .string(end),
            "position": .string(position),
        ]
        if let worker { args["assignee"] = .string(worker.userID) }
        return try #require(call("roster.add_shift", .object(args), as: Self.ann)["id"]?.intValue)
    }

    /// `caller` offers their shift on `date`; returns the trade's id.
    @discardableResult
    func offer(_ shift: Int64, on date: String, as caller: Caller) throws -> Int64 {
        try #require(call("roster.offer", ["shift_id": .integer(shift), "date": .string(date)], as: caller)["id"]?.intValue)
    }

    @discardableResult
    func trade(_ id: Int64, _ command: String, as caller: Caller) throws -> JSONValue {
        try call(command, ["trade_id": .integer(id)], as: caller)
    }

    func state(of trade: Int64) throws -> String? {
        try call("roster.trade", ["trade_id": .integer(trade)], as: Self.ann)["trade"]?["state"]?.stringValue
    }

    /// Who works the occurrence of `shift` on `date`, by the team's schedule.
    func worker(_ team: Int64, shift: Int64, on date: String) throws -> String? {
        let schedule = try call(
            "roster.schedule", ["view": "team", "team_id": .integer(team), "from": .string(date), "to": .string(date)], as: Self.ann)
        let occurrence = schedule["occurrences"]?.arrayValue?.first { $0["shift_id"]?.intValue == shift }
        return occurrence?["assignee"]?["user_id"]?.stringValue
    }

    /// Moves a trade's expiry (its first shift's start) into the past, behind the service's back:
    /// what the clock does to an offer nobody took in time.
    func letShiftStart(of trade: Int64) throws {
        try execute("UPDATE trade SET starts_at = \(timestamp: Timestamp.now() - 60_000) WHERE id = \(trade)")
    }
}

/// Days of the calendar relative to today (UTC), for shifts that must lie in the future or past.
enum Day {
    static var today: LocalDate { LocalDate(epochDay: Int(Timestamp.now() / 86_400_000)) }

    /// `YYYY-MM-DD`, `days` from today.
    static func from(today days: Int) -> String { today.adding(days: days).description }
}
